import CacheChain
import CacheChainFoundation
import CacheChainLoopback
import CacheChainTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Testing

/// Apple's Listing 1, `urlSession(_:dataTask:willCacheResponse:completionHandler:)`, and the redirect delegate,
/// through a real `URLSession`: each answer changes what CacheChain stores or which hop is loaded.
@Suite("URLSession through CacheChain: the delegate decides")
struct URLSessionDelegateTests {
    /// Keeps `/keep`, keeps `/memory` in memory only, stamps `/stamp`'s userInfo and replaces its body, vetoes `/veto`.
    static func listingOne(_ proposed: CachedURLResponse) -> CachedURLResponse? {
        switch proposed.response.url?.path {
        case "/memory":
            return CachedURLResponse(response: proposed.response, data: proposed.data, userInfo: proposed.userInfo, storagePolicy: .allowedInMemoryOnly)
        case "/stamp":
            let info: [AnyHashable: Any] = ["tag": "stamped", "count": 3, "when": Date(timeIntervalSince1970: 1_800_000_000)]
            return CachedURLResponse(response: proposed.response, data: Data("rewritten".utf8), userInfo: info, storagePolicy: proposed.storagePolicy)
        case "/veto":
            return nil
        default:
            return proposed
        }
    }

    @Test("keep, memory only, modify and veto each change what is stored; the delegate gets the task's session",
          arguments: Scheme.allCases)
    func willCacheResponse(_ scheme: Scheme) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cachechain-delegate-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let disk = try DiskStorage(directory: directory.path)
        let storage = TieredStorage(memory: MemoryStorage(capacity: 1 << 20), disk: disk)
        let delegate = DataRecorder(caching: Self.listingOne)
        try await withLoopbackSession(scheme, storage: storage, delegate: delegate) { net in
            for path in ["/keep", "/memory", "/stamp", "/veto"] {
                net.origin.route(path, LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "origin \(path)"))
                let first = try await net.fetch(path)
                #expect(first.body == "origin \(path)", "the task gets the origin's body whatever is stored")
            }
            func stored(_ path: String) async throws -> (any: CachedResponse?, onDisk: Bool) {
                let head = try HTTPRequest(url: net.origin.url(path))
                let key = net.client.configuration.cacheKeyStrategy.key(for: head)
                return (try await net.client.cachedResponse(for: head), try await !disk.entries(for: key).isEmpty)
            }
            let keep = try await stored("/keep")
            #expect(keep.any?.storagePolicy == .allowed && keep.onDisk)
            let memory = try await stored("/memory")
            #expect(memory.any?.storagePolicy == .allowedInMemoryOnly && !memory.onDisk)
            let stamp = try await stored("/stamp")
            let info = try #require(stamp.any?.cachedURLResponse(for: net.url("/stamp"))?.userInfo)
            #expect(info["tag"] as? String == "stamped")
            #expect(info["count"] as? Int == 3)
            #expect(info["when"] as? Date == Date(timeIntervalSince1970: 1_800_000_000))
            #expect(try await net.fetch("/stamp").body == "rewritten")
            let veto = try await stored("/veto")
            #expect(veto.any == nil && !veto.onDisk)
            _ = try await net.fetch("/veto")
            #expect(net.origin.requestCount(for: "/veto") == 2)
            #expect(net.origin.requestCount(for: "/keep") == 1)
            let sessions = delegate.state.withLock { $0.askingSessions }
            #expect(sessions.count == 5 && sessions.allSatisfy { $0 === net.session })
        }
    }

    @Test("a response that is not storable is not proposed to the delegate")
    func notStorableNotProposed() async throws {
        let delegate = DataRecorder()
        try await withLoopbackSession(delegate: delegate) { net in
            net.origin.route("/private", LoopbackRoute(headers: [("Cache-Control", "no-store")], body: "x"))
            _ = try await net.fetch("/private")
            #expect(delegate.state.withLock { $0.askingSessions.isEmpty })
        }
    }

    @Test("redirects: the delegate is asked, each hop goes through the cache, and the final URL is reported",
          arguments: Scheme.allCases)
    func redirectFollowed(_ scheme: Scheme) async throws {
        let delegate = DataRecorder()
        try await withLoopbackSession(scheme, delegate: delegate) { net in
            net.origin.route("/old", LoopbackRoute(status: 301, headers: [("Location", "/new"), ("Cache-Control", "max-age=60")], body: "moved"))
            net.origin.route("/new", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "new place"))
            let first = try await net.fetch("/old")
            #expect(first.body == "new place")
            #expect(first.response.url == net.url("/new"))
            let again = try await net.fetch("/old")
            #expect(again.body == "new place")
            #expect(net.origin.requestCount(for: "/old") == 1 && net.origin.requestCount(for: "/new") == 1)
            let redirects = delegate.state.withLock { $0.redirects }
            #expect(redirects.map(\.status) == [301, 301])
            #expect(redirects.map(\.to) == [net.url("/new"), net.url("/new")])
        }
    }

    @Test("a delegate that answers nil gets the redirect response itself, with its body")
    func redirectRefused() async throws {
        let delegate = DataRecorder(redirect: { _, _ in nil })
        try await withLoopbackSession(delegate: delegate) { net in
            net.origin.route("/old", LoopbackRoute(status: 302, headers: [("Location", "/new")], body: "see /new"))
            net.origin.route("/new", LoopbackRoute(body: "new place"))
            let result = try await net.fetch("/old")
            #expect(result.response.statusCode == 302)
            #expect(result.body == "see /new")
            #expect(net.origin.requestCount(for: "/new") == 0)
        }
    }

    @Test("a delegate may send the redirect elsewhere; 303 after POST continues with GET and no body")
    func redirectRewritten() async throws {
        let delegate = DataRecorder(redirect: { _, request in
            guard request.url?.path == "/rewrite-me" else { return request }
            var changed = request
            changed.url = request.url.flatMap { URL(string: "/elsewhere", relativeTo: $0)?.absoluteURL }
            return changed
        })
        try await withLoopbackSession(delegate: delegate) { net in
            net.origin.route("/start", LoopbackRoute(status: 307, headers: [("Location", "/rewrite-me")]))
            net.origin.route("/elsewhere", LoopbackRoute(body: "elsewhere"))
            #expect(try await net.fetch("/start").body == "elsewhere")
            #expect(net.origin.requestCount(for: "/rewrite-me") == 0)

            net.origin.route("/form", LoopbackRoute(status: 303, headers: [("Location", "/done")]))
            net.origin.route("/done", LoopbackRoute(body: "done"))
            var post = net.request("/form", method: "POST")
            post.httpBody = Data("a=1".utf8)
            let (data, _) = try await net.session.data(for: post)
            #expect(String(decoding: data, as: UTF8.self) == "done")
            let done = try #require(net.origin.receivedRequests.last)
            #expect(done.method == "GET" && done.body.isEmpty && done.path == "/done")
        }
    }

    @Test("more than 20 redirects fail with URLError.httpTooManyRedirects")
    func tooManyRedirects() async throws {
        try await withLoopbackSession { net in
            net.origin.route("/loop", handler: { request in
                let hop = Int(request.path.split(separator: "=").last ?? "0") ?? 0
                return LoopbackRoute(status: 302, headers: [("Location", "/loop?n=\(hop + 1)")])
            })
            let error = await #expect(throws: URLError.self) { _ = try await net.fetch("/loop?n=0") }
            #expect(error?.code == .httpTooManyRedirects)
            #expect(net.origin.requestCount(for: "/loop") == 21)
        }
    }
}
