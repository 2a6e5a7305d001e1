import CacheChainCore
import CacheChainPolicy
import Foundation
import HTTPTypes
import Synchronization
import Testing

private enum OwnerKey: CacheUserInfoKey {
    typealias Value = String
    static let name = "owner"
}

private enum StampKey: CacheUserInfoKey {
    typealias Value = Date
    static let name = "stamp"
}

@Suite("Currency types")
struct CurrencyTypeTests {
    @Test(
        "cache keys normalize scheme, host, default ports and fragments, and fold HEAD into GET",
        arguments: [
            (HTTPRequest(method: .get, scheme: "HTTP", authority: "Example.COM:80", path: "/a?b=1"), "GET http://example.com/a?b=1"),
            (HTTPRequest(method: .head, scheme: "https", authority: "example.com:443", path: "/a"), "GET https://example.com/a"),
            (HTTPRequest(method: .get, scheme: "https", authority: "example.com:8443", path: ""), "GET https://example.com:8443/"),
            (HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/p#frag"), "GET https://example.com/p"),
            (HTTPRequest(method: .post, scheme: "https", authority: "example.com", path: "/p"), "POST https://example.com/p"),
        ]
    )
    func cacheKey(request: HTTPRequest, expected: String) {
        #expect(CacheKey(request).stringValue == expected)
        #expect(CacheKey(request).url == String(expected.drop { $0 != " " }.dropFirst()))
    }

    @Test("keys that differ only in method, scheme or discriminator stay apart in sets and dictionaries; equal keys hash alike")
    func cacheKeyHashing() {
        let base = CacheKey(method: "GET", scheme: "https", authority: "example.com", path: "/a")
        let variants = [
            base,
            CacheKey(method: "POST", scheme: "https", authority: "example.com", path: "/a"),
            CacheKey(method: "GET", scheme: "http", authority: "example.com", path: "/a"),
            CacheKey(method: "GET", scheme: "https", authority: "example.com", path: "/a", discriminator: "lang=fr"),
            CacheKey(method: "GET", scheme: "https", authority: "example.org", path: "/a"),
            CacheKey(method: "GET", scheme: "https", authority: "example.com", path: "/b"),
        ]
        #expect(Set(variants).count == variants.count)
        var values: [CacheKey: Int] = [:]
        for (index, key) in variants.enumerated() { values[key] = index }
        for (index, key) in variants.enumerated() { #expect(values[key] == index) }
        let same = CacheKey(method: "get", scheme: "HTTPS", authority: "Example.com", path: "/a")
        #expect(same == base)
        #expect(same.hashValue == base.hashValue)
    }

    @Test("userInfo values are typed, Codable, and survive an encode/decode round trip")
    func userInfoRoundTrip() throws {
        var info = CacheUserInfo()
        info[OwnerKey.self] = "user-42"
        info[StampKey.self] = Date(timeIntervalSince1970: 1_000_000)
        let data = try JSONEncoder().encode(info)
        let decoded = try JSONDecoder().decode(CacheUserInfo.self, from: data)
        #expect(decoded[OwnerKey.self] == "user-42")
        #expect(decoded[StampKey.self] == Date(timeIntervalSince1970: 1_000_000))
        #expect(decoded.names == ["owner", "stamp"])
        #expect(decoded.jsonText(forName: "owner") == "\"user-42\"")
        var removed = decoded
        removed[OwnerKey.self] = nil
        #expect(removed.names == ["stamp"])
    }

    @Test("variant keys combine the Vary-nominated request fields, independent of order and case")
    func variantKey() throws {
        var request = HTTPRequest(method: .get, scheme: "https", authority: "a.test", path: "/")
        request.headerFields[.acceptLanguage] = "fr"
        request.headerFields[.accept] = "text/html"
        var response = HTTPResponse(status: .ok)
        response.headerFields[.vary] = "Accept-Language, accept"
        #expect(CacheEntry.variantKey(request: request, response: response) == "accept=text/html|accept-language=fr")
        response.headerFields[.vary] = "*"
        #expect(CacheEntry.variantKey(request: request, response: response) == "*")
        response.headerFields[.vary] = nil
        #expect(CacheEntry.variantKey(request: request, response: response) == "")
    }

    @Test("entries round-trip through JSON with head, body, userInfo, policy and times")
    func entryCodable() throws {
        var info = CacheUserInfo()
        info[OwnerKey.self] = "me"
        var response = HTTPResponse(status: .ok)
        response.headerFields[.cacheControl] = "max-age=60"
        response.headerFields.append(HTTPField(name: .setCookie, value: "a=1"))
        response.headerFields.append(HTTPField(name: .setCookie, value: "b=2"))
        let entry = CacheEntry(
            request: HTTPRequest(method: .get, scheme: "https", authority: "a.test", path: "/x"),
            cached: CachedResponse(
                response: response,
                body: PipelineBody([0, 1, 2, 255]),
                userInfo: info,
                storagePolicy: .allowedInMemoryOnly,
                requestTime: Date(timeIntervalSince1970: 10),
                responseTime: Date(timeIntervalSince1970: 11)
            )
        )
        let decoded = try JSONDecoder().decode(CacheEntry.self, from: JSONEncoder().encode(entry))
        #expect(decoded == entry)
        #expect(decoded.cached.response.headerFields[values: .setCookie] == ["a=1", "b=2"])
        #expect(entry.cost > 4)
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(entry)) as? [String: Any])
        #expect(Set(object.keys) == ["key", "variantKey", "request", "cached", "storedAt"])

        // Copies share their values until one is changed: a change never shows through another copy.
        var copy = entry
        copy.cached.body = PipelineBody([9])
        copy.storedAt = Date(timeIntervalSince1970: 99)
        #expect(entry.cached.body == PipelineBody([0, 1, 2, 255]))
        #expect(entry.storedAt == Date(timeIntervalSince1970: 11))
        #expect(copy.cached.body == PipelineBody([9]) && copy.storedAt == Date(timeIntervalSince1970: 99))
        #expect(copy != entry)
        var restored = copy
        restored.cached.body = entry.cached.body
        restored.storedAt = entry.storedAt
        #expect(restored == entry && restored.hashValue == entry.hashValue)
        copy.key = CacheKey(method: "GET", scheme: "https", authority: "b.test", path: "/y")
        copy.variantKey = "accept=text/html"
        copy.request.path = "/y"
        #expect(copy.key.authority == "b.test" && copy.variantKey == "accept=text/html")
        #expect(copy.request.path == "/y" && entry.request.path == "/x")
        #expect(entry.key.authority == "a.test" && entry.variantKey.isEmpty)

        // A backend's body replacement changes the body only, in that copy only, and keeps the engine's view.
        var reread = entry
        reread.replaceBody(with: PipelineBody([4, 5]))
        #expect(reread.cached.body == PipelineBody([4, 5]) && entry.cached.body == PipelineBody([0, 1, 2, 255]))
        #expect(reread.exchange == entry.exchange && reread.cached.response == entry.cached.response)
        #expect(reread.key == entry.key && reread.request == entry.request && reread.storedAt == entry.storedAt)
        reread.replaceBody(with: entry.cached.body)
        #expect(reread == entry && reread.hashValue == entry.hashValue)
        // Entries that differ in their body only are different, and each encodes its own body.
        var other = entry
        other.replaceBody(with: PipelineBody([1]))
        #expect(other != entry)
        #expect(try JSONDecoder().decode(CacheEntry.self, from: JSONEncoder().encode(other)).cached.body == PipelineBody([1]))
        #expect(try JSONDecoder().decode(CacheEntry.self, from: JSONEncoder().encode(other)) == other)
        // A new user info under the same head keeps the engine's view too, and shows in that copy only.
        var tagged = entry
        tagged.cached.userInfo[OwnerKey.self] = "you"
        #expect(tagged.exchange == entry.exchange && tagged != entry)
        #expect(tagged.cached.userInfo[OwnerKey.self] == "you" && entry.cached.userInfo[OwnerKey.self] == "me")
        #expect(tagged.cached.body == entry.cached.body)

        // The engine's view follows the entry: kept across a new body, remade for a new head or request.
        var view = entry
        view.cached.body = PipelineBody([7])
        #expect(view.exchange == entry.exchange)
        view.cached.response.headerFields[.cacheControl] = "max-age=5"
        #expect(view.exchange.response.headerFields[.cacheControl] == "max-age=5")
        #expect(CachePolicyEngine().freshnessLifetime(of: view.exchange).seconds == 5)
        view.cached.responseTime = Date(timeIntervalSince1970: 50)
        #expect(view.exchange.responseTime == Date(timeIntervalSince1970: 50))
        view.request.path = "/z"
        #expect(view.exchange.request.path == "/z")
        #expect(entry.exchange.response.headerFields[.cacheControl] == "max-age=60")
    }

    @Test("bodies describe themselves by size only")
    func bodyDescription() {
        let body = PipelineBody(string: "secret token")
        #expect(body.description == "PipelineBody(12 bytes)")
        #expect(body.string == "secret token")
        #expect(PipelineBody([0xFF, 0xFE]).string == nil)
    }

    @Test("context values are typed and independent per key")
    func contextValues() {
        enum A: ContextValueKey { typealias Value = Int }
        enum B: ContextValueKey { typealias Value = String }
        var values = ContextValues()
        values[A.self] = 1
        values[B.self] = "b"
        #expect(values[A.self] == 1)
        #expect(values[B.self] == "b")
        values[A.self] = nil
        #expect(values[A.self] == nil)
        #expect(values.count == 1)
    }

    @Test("the revalidation queue runs one operation per id at a time and drains")
    func revalidationQueue() async {
        let queue = RevalidationQueue()
        let gate = AsyncStream<Void>.makeStream()
        let first = await queue.schedule(id: "k") {
            for await _ in gate.stream { break }
        }
        let duplicate = await queue.schedule(id: "k") {}
        let other = await queue.schedule(id: "other") {}
        #expect(first)
        #expect(!duplicate)
        #expect(other)
        gate.continuation.yield()
        await queue.drain()
        #expect(await queue.pendingCount == 0)
        #expect(await queue.completedCount == 2)
    }

    @Test("event sinks combine")
    func eventSinks() {
        let log = Journal()
        let sink = CacheEventSink { log.append("a:\($0.kind)") }.combined(with: CacheEventSink { log.append("b:\($0.kind)") })
        sink.emit(CacheEvent(.hit))
        #expect(log.all == ["a:hit", "b:hit"])
        let withNone = CacheEventSink.none.combined(with: CacheEventSink { log.append("c:\($0.kind)") }).combined(with: .none)
        withNone.emit(CacheEvent(.miss))
        #expect(log.all == ["a:hit", "b:hit", "c:miss"])
    }

    @Test("the silent sink never builds the event; a listening one builds it once")
    func silentSinkBuildsNothing() {
        let built = Mutex(0)
        func event() -> CacheEvent {
            built.withLock { $0 += 1 }
            return CacheEvent(.hit)
        }
        CacheEventSink.none.emit(event())
        CacheEventSink.none.combined(with: .none).emit(event())
        #expect(built.withLock { $0 } == 0)
        let log = Journal()
        CacheEventSink { log.append("\($0.kind)") }.emit(event())
        #expect(built.withLock { $0 } == 1)
        #expect(log.all == ["hit"])
    }
}

private final class Journal: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
