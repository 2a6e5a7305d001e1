import CacheChain
import CacheChainFoundation
import CacheChainLoopback
import CacheChainTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// RFC 9111 caching through a real `URLSession` (FoundationNetworking) configured with `usingCacheChain`, over
/// libcurl to the loopback origin, HTTP and HTTPS.
@Suite("URLSession through CacheChain: caching")
struct URLSessionCachingTests {
    @Test("MISS reaches the origin once, HIT does not", arguments: Scheme.allCases)
    func missThenHit(_ scheme: Scheme) async throws {
        try await withLoopbackSession(scheme) { net in
            net.origin.route("/a", LoopbackRoute(headers: [("Cache-Control", "max-age=60"), ("Content-Type", "text/plain")], body: "hello"))
            let first = try await net.fetch("/a")
            let second = try await net.fetch("/a")
            #expect(first.body == "hello" && second.body == "hello")
            #expect(second.response.statusCode == 200)
            #expect(second.response.value(forHTTPHeaderField: "Content-Type") == "text/plain")
            #expect(second.response.url == net.url("/a"))
            #expect(net.origin.requestCount(for: "/a") == 1)
            #expect(net.probe.decisions == [.miss, .hit])
        }
    }

    @Test("stale → conditional GET → 304 → fresh again, with the 304's headers merged", arguments: Scheme.allCases)
    func revalidation(_ scheme: Scheme) async throws {
        try await withLoopbackSession(scheme) { net in
            net.origin.route("/r", LoopbackRoute(headers: [("Cache-Control", "max-age=5"), ("X-Version", "1")], body: "body-1", etag: "\"v1\""))
            _ = try await net.fetch("/r")
            net.clock.advance(by: 30)
            net.origin.route("/r", LoopbackRoute(headers: [("Cache-Control", "max-age=100"), ("X-Version", "2")], body: "changed", etag: "\"v1\""))
            let revalidated = try await net.fetch("/r")
            #expect(revalidated.response.statusCode == 200)
            #expect(revalidated.body == "body-1")
            #expect(revalidated.response.value(forHTTPHeaderField: "X-Version") == "2")
            let conditional = try #require(net.origin.receivedRequests.last)
            #expect(conditional.header("If-None-Match") == "\"v1\"")
            let fresh = try await net.fetch("/r")
            #expect(fresh.body == "body-1")
            #expect(net.origin.requestCount(for: "/r") == 2)
            #expect(net.probe.decisions == [.miss, .revalidated, .hit])
        }
    }

    /// After one fresh response is stored (and one 30 s stale for the second half of the table), each policy's
    /// origin requests and body.
    struct PolicyCase: Sendable, CustomTestStringConvertible {
        let policy: URLRequest.CachePolicy
        let isStale: Bool
        let originRequests: Int
        let body: String
        let conditional: Bool
        var testDescription: String { "\(policy) on a \(isStale ? "stale" : "fresh") entry" }
    }

    static let policyCases: [PolicyCase] = [
        PolicyCase(policy: .useProtocolCachePolicy, isStale: false, originRequests: 0, body: "v1", conditional: false),
        PolicyCase(policy: .reloadIgnoringLocalCacheData, isStale: false, originRequests: 1, body: "v2", conditional: false),
        PolicyCase(policy: .reloadIgnoringLocalAndRemoteCacheData, isStale: false, originRequests: 1, body: "v2", conditional: false),
        PolicyCase(policy: .returnCacheDataElseLoad, isStale: false, originRequests: 0, body: "v1", conditional: false),
        PolicyCase(policy: .returnCacheDataDontLoad, isStale: false, originRequests: 0, body: "v1", conditional: false),
        PolicyCase(policy: .reloadRevalidatingCacheData, isStale: false, originRequests: 1, body: "v1", conditional: true),
        PolicyCase(policy: .useProtocolCachePolicy, isStale: true, originRequests: 1, body: "v1", conditional: true),
        PolicyCase(policy: .returnCacheDataElseLoad, isStale: true, originRequests: 0, body: "v1", conditional: false),
        PolicyCase(policy: .returnCacheDataDontLoad, isStale: true, originRequests: 0, body: "v1", conditional: false),
    ]

    @Test("each URLRequest.CachePolicy decides as HTTPCacheClient does", arguments: policyCases)
    func cachePolicies(_ test: PolicyCase) async throws {
        try await withLoopbackSession { net in
            net.origin.route("/p", LoopbackRoute(headers: [("Cache-Control", "max-age=10")], body: "v1", etag: "\"1\""))
            _ = try await net.fetch("/p")
            if test.isStale { net.clock.advance(by: 30) }
            // The origin now has a new body under the same validator: a 304 keeps "v1", a full fetch gets "v2".
            net.origin.route("/p", LoopbackRoute(headers: [("Cache-Control", "max-age=10")], body: "v2", etag: "\"1\""))
            let result = try await net.fetch("/p", policy: test.policy)
            #expect(result.body == test.body)
            #expect(net.origin.requestCount(for: "/p") == 1 + test.originRequests)
            if test.originRequests > 0 {
                let last = try #require(net.origin.receivedRequests.last)
                #expect((last.header("If-None-Match") != nil) == test.conditional)
                if test.policy == .reloadIgnoringLocalAndRemoteCacheData {
                    #expect(last.header("Cache-Control") == "no-cache")
                }
            }
        }
    }

    @Test("the configuration's requestCachePolicy applies to requests that keep the default policy")
    func configurationPolicy() async throws {
        try await withLoopbackSession(configure: { $0.requestCachePolicy = .reloadIgnoringLocalCacheData }) { net in
            net.origin.route("/c", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "c"))
            _ = try await net.fetch("/c")
            _ = try await net.fetch("/c")
            _ = try await net.fetch("/c", policy: .returnCacheDataElseLoad)
            #expect(net.origin.requestCount(for: "/c") == 2)
        }
    }

    @Test("returnCacheDataDontLoad on a miss fails with URLError.resourceUnavailable and never reaches the origin")
    func dontLoadMiss() async throws {
        try await withLoopbackSession { net in
            net.origin.route("/none", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "x"))
            let error = await #expect(throws: URLError.self) {
                _ = try await net.fetch("/none", policy: .returnCacheDataDontLoad)
            }
            #expect(error?.code == .resourceUnavailable)
            #expect(error?.failingURL == net.url("/none"))
            #expect(net.origin.requestCount(for: "/none") == 0)
        }
    }

    @Test("a POST reaches the origin with its body and invalidates the stored GET", arguments: Scheme.allCases)
    func postInvalidates(_ scheme: Scheme) async throws {
        try await withLoopbackSession(scheme) { net in
            net.origin.route("/item", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "item"))
            _ = try await net.fetch("/item")
            var post = net.request("/item", method: "POST")
            post.httpBody = Data("name=new".utf8)
            let (_, response) = try await net.session.data(for: post)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            let sent = try #require(net.origin.receivedRequests.last)
            #expect(sent.method == "POST")
            #expect(String(decoding: sent.body, as: UTF8.self) == "name=new")
            #expect(sent.header("Content-Type") == "application/x-www-form-urlencoded")
            _ = try await net.fetch("/item")
            #expect(net.origin.requestCount(for: "/item") == 3)
            #expect(net.probe.decisions.last == .miss)
        }
    }

    @Test("50 concurrent tasks for one URL reach the origin once and all get the body")
    func concurrentTasks() async throws {
        try await withLoopbackSession { net in
            let gate = LoopbackGate()
            var route = LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "shared")
            route.gate = gate
            net.origin.route("/hot", route)
            let bodies = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await net.fetch("/hot").body }
                }
                // Every task has reached the chain and joined the leader's flight, and the leader waits at the origin.
                try await waitUntil("50 requests reached the chain") { net.probe.arrivals.withLock { $0 } == 50 }
                try await waitUntil("49 requests joined the leader") {
                    net.probe.events.withLock { $0.count { $0 == .coalesced } } == 49
                }
                try await waitUntil("the leader reached the origin") { gate.waitingCount == 1 }
                gate.open()
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(bodies.count == 50)
            #expect(bodies.allSatisfy { $0 == "shared" })
            #expect(net.origin.requestCount(for: "/hot") == 1)
        }
    }

    @Test("completion-handler and delegate tasks get the same response as the async API")
    func callbackTasks() async throws {
        let recorder = DataRecorder()
        try await withLoopbackSession(delegate: recorder) { net in
            net.origin.route("/cb", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "callback body"))
            let completion = LockedValue<String?>(nil)
            net.session.dataTask(with: net.url("/cb")) { data, response, error in
                let status = (response as? HTTPURLResponse)?.statusCode ?? -1
                completion.withLock { $0 = "\(status) \(data.map { String(decoding: $0, as: UTF8.self) } ?? "nil") \(error == nil)" }
            }.resume()
            try await waitUntil("the completion handler ran") { completion.withLock { $0 != nil } }
            #expect(completion.withLock { $0 } == "200 callback body true")

            net.session.dataTask(with: net.url("/cb")).resume()
            try await waitUntil("the delegate saw the task complete") { recorder.state.withLock { $0.completions } == 1 }
            let seen = recorder.state.withLock { $0 }
            #expect(String(decoding: seen.data, as: UTF8.self) == "callback body")
            #expect(seen.statuses == [200])
            #expect(seen.errors.isEmpty)
            #expect(net.origin.requestCount(for: "/cb") == 1)
        }
    }

    @Test("httpAdditionalHeaders are sent, and the request's own fields win")
    func additionalHeaders() async throws {
        try await withLoopbackSession(configure: { $0.httpAdditionalHeaders = ["X-App": "demo", "Accept": "text/plain"] }) { net in
            net.origin.route("/h", LoopbackRoute(body: "h"))
            var request = net.request("/h")
            request.setValue("application/json", forHTTPHeaderField: "Accept")
            _ = try await net.session.data(for: request)
            let sent = try #require(net.origin.receivedRequests.last)
            #expect(sent.header("X-App") == "demo")
            #expect(sent.header("Accept") == "application/json")
        }
    }
}
