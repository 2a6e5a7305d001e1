@testable import CacheChainInterceptors
import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// A counter's value, and zero again.
private func take(_ counter: LockedValue<Int>) -> Int {
    counter.withLock { value in
        let taken = value
        value = 0
        return taken
    }
}

/// A storage that counts the calls the chain makes and forwards them to a real backend (memory or disk).
private struct CountingStorage: CacheStorage {
    let inner: any CacheStorage
    let lookups = LockedValue(0)
    let stores = LockedValue(0)
    let usages = LockedValue(0)

    func entries(for key: CacheKey) async throws -> [CacheEntry] {
        lookups.withLock { $0 += 1 }
        return try await inner.entries(for: key)
    }
    func entries(for key: CacheKey, matching request: HTTPRequest) async throws -> [CacheEntry] {
        lookups.withLock { $0 += 1 }
        return try await inner.entries(for: key, matching: request)
    }
    func store(_ entry: CacheEntry) async throws {
        stores.withLock { $0 += 1 }
        try await inner.store(entry)
    }
    func remove(_ key: CacheKey) async throws { try await inner.remove(key) }
    // A wrapper forwards the invalidation of a target's QUERY entries (the default would visit every entry).
    func removeEntries(sameTargetAs key: CacheKey) async throws { try await inner.removeEntries(sameTargetAs: key) }
    func removeAll() async throws { try await inner.removeAll() }
    func keys() async throws -> [CacheKey] { try await inner.keys() }
    func usage() async -> StorageUsage {
        usages.withLock { $0 += 1 }
        return await inner.usage()
    }
    var capacities: StorageUsage { get async { await inner.capacities } }
    func varyDigestKey(for key: CacheKey) -> VaryDigestKey { inner.varyDigestKey(for: key) }

    /// The calls made since the last reset, then zero again.
    func takeCounts() -> (lookups: Int, stores: Int, usages: Int) {
        (take(lookups), take(stores), take(usages))
    }
}

/// Issue 42: one plan per request. A hit never reaches the coalescer; a miss makes one storage lookup, one store and
/// no usage query, whatever the backend; ranges, body keys and overrides are steps of the same plan (one key, one
/// lookup); and "don't use the network" is never turned into a fetch by a range or a never-cache rule (issue 46.6).
@Suite("One plan per request", .tags(.integration))
struct OnePlanPerRequestTests {
    enum Backend: String, CaseIterable, Sendable { case memory, disk }

    private struct Setup {
        let origin: LoopbackOrigin
        let storage: CountingStorage
        let keys = LockedValue(0)
        let client: HTTPCacheClient
        let directory: String?

        init(_ backend: Backend, overrides: [PolicyOverrideRule] = [], bodyRules: [BodyKeyedCachingRule] = []) async throws {
            origin = try await LoopbackOrigin.start()
            var directory: String?
            let inner: any CacheStorage
            switch backend {
            case .memory:
                inner = MemoryStorage(capacity: 8 << 20)
            case .disk:
                let path = FileManager.default.temporaryDirectory.appendingPathComponent("cachechain-plan-\(UUID().uuidString)").path
                directory = path
                inner = try DiskStorage(directory: path, capacity: 8 << 20)
            }
            self.directory = directory
            storage = CountingStorage(inner: inner)
            let keys = self.keys
            client = HTTPCacheClient(
                transport: CurlTransport(),
                configuration: .init(
                    storage: storage,
                    cacheKeyStrategy: CacheKeyStrategy { request in
                        keys.withLock { $0 += 1 }
                        return CacheKey(request)
                    },
                    timeout: .seconds(20),
                    policyOverrides: overrides,
                    bodyKeyedCaching: bodyRules
                )
            )
        }

        var policy: CachePolicyInterceptor? { client.pipeline.interceptors.lazy.compactMap { $0 as? CachePolicyInterceptor }.first }

        func send(_ path: String, method: HTTPRequest.Method = .get, body: String? = nil, fields: [HTTPField] = [],
                  cachePolicy: RequestCachePolicy? = nil) async throws -> PipelineResponse {
            var request = try HTTPRequest(url: origin.url(path))
            request.method = method
            for field in fields { request.headerFields.append(field) }
            return try await client.data(for: request, body: body.map { PipelineBody(string: $0) }, cachePolicy: cachePolicy)
        }

        func takeKeys() -> Int { take(keys) }

        func finish() async throws {
            try await client.shutdown()
            try await origin.shutdown()
            if let directory { try? FileManager.default.removeItem(atPath: directory) }
        }
    }

    @Test("a miss: one lookup, one store, no usage query; a hit: one lookup and never the coalescer", arguments: Backend.allCases)
    func missAndHit(_ backend: Backend) async throws {
        let setup = try await Setup(backend)
        setup.origin.route("/doc", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "doc"))
        let miss = try await setup.send("/doc")
        #expect(miss.cacheStatus == .miss)
        let missCounts = setup.storage.takeCounts()
        #expect(missCounts.lookups == 1)
        #expect(missCounts.stores == 1)
        #expect(missCounts.usages == 0, "the size rule reads the capacity without a usage query")
        #expect(setup.takeKeys() == 1)
        let joinsAfterMiss = try #require(setup.policy).coalescerJoinCount
        #expect(joinsAfterMiss == 1)

        for _ in 0..<3 {
            let hit = try await setup.send("/doc")
            #expect(hit.cacheStatus == .hit)
        }
        let hitCounts = setup.storage.takeCounts()
        #expect(hitCounts.lookups == 3 && hitCounts.stores == 0 && hitCounts.usages == 0)
        #expect(setup.takeKeys() == 3)
        #expect(try #require(setup.policy).coalescerJoinCount == joinsAfterMiss, "a hit never reaches the coalescer")
        #expect(setup.origin.requestCount(for: "/doc") == 1)
        try await setup.finish()
    }

    @Test("a revalidation answered 304: one lookup, one store (the merge), no usage query", arguments: Backend.allCases)
    func revalidation(_ backend: Backend) async throws {
        let setup = try await Setup(backend)
        setup.origin.route("/validated", LoopbackRoute(headers: [("Cache-Control", "no-cache")], body: "hello", etag: "\"v1\""))
        _ = try await setup.send("/validated")
        _ = setup.storage.takeCounts()
        _ = setup.takeKeys()
        let revalidated = try await setup.send("/validated")
        #expect(revalidated.cacheStatus == .revalidated)
        #expect(revalidated.body.string == "hello")
        let counts = setup.storage.takeCounts()
        #expect(counts.lookups == 1 && counts.stores == 1 && counts.usages == 0)
        #expect(setup.takeKeys() == 1)
        try await setup.finish()
    }

    @Test("ranges, body keys and overrides are steps of the one plan: one key and one lookup per request", arguments: Backend.allCases)
    func features(_ backend: Backend) async throws {
        let setup = try await Setup(
            backend,
            overrides: [PolicyOverrideRule("images", pathPrefix: "/img/", freshness: .whenAbsent(.seconds(300)))],
            bodyRules: [BodyKeyedCachingRule("search", pathPrefix: "/search")]
        )
        setup.origin.route("/video", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "0123456789"))
        setup.origin.route("/img/a.png", LoopbackRoute(headers: [], body: "png"))
        setup.origin.route("/search") { request in
            LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "found \(String(decoding: request.body, as: UTF8.self))")
        }
        // A range with nothing stored goes to the origin after two lookups: the complete entry's, then the key's stored
        // 206 part's (issue 45.3; only range requests pay for the second).
        let ranged = try await setup.send("/video", fields: [HTTPField(name: .range, value: "bytes=0-3")])
        #expect(ranged.head.status.code == 206 || ranged.head.status.code == 200)
        #expect(setup.storage.takeCounts().lookups == 2)
        #expect(setup.takeKeys() == 1)
        _ = try await setup.send("/video")  // stored whole
        #expect(setup.storage.takeCounts().lookups == 1, "a request without Range never looks a part up")
        _ = setup.takeKeys()
        let part = try await setup.send("/video", fields: [HTTPField(name: .range, value: "bytes=2-5")])
        #expect(part.head.status.code == 206)
        #expect(part.body.string == "2345")
        #expect(part.cacheStatus == .hit, "\(part.trace)")
        #expect(setup.storage.takeCounts().lookups == 1)
        #expect(setup.takeKeys() == 1)

        let searched = try await setup.send("/search", method: .post, body: "q=1")
        #expect(searched.cacheStatus == .miss)
        var counts = setup.storage.takeCounts()
        #expect(counts.lookups == 1 && counts.stores == 1 && counts.usages == 0)
        #expect(setup.takeKeys() == 2, "the request's key, and the key of the GET entry the POST invalidates (RFC 9111 §4.4)")
        #expect(try await setup.send("/search", method: .post, body: "q=1").cacheStatus == .hit)
        #expect(setup.origin.receivedRequests.last?.method == "POST", "the origin got the POST itself")

        let image = try await setup.send("/img/a.png")
        #expect(image.trace.contains { $0.code == .policyOverride })
        counts = setup.storage.takeCounts()
        #expect(counts.lookups == 2 && counts.stores == 1 && counts.usages == 0, "the POST hit's lookup, the image's lookup and store: \(counts)")
        #expect(image.head.headerFields[HTTPField.Name("CacheChain-Override")!] == nil)
        try await setup.finish()
    }

    @Test("only-if-cached is never turned into a fetch: a range with no fresh entry, a never-cache rule (issue 46.6)")
    func dontUseTheNetwork() async throws {
        let setup = try await Setup(.memory, overrides: [PolicyOverrideRule("live", pathPrefix: "/live/", neverCache: true)])
        setup.origin.route("/video", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "0123456789"))
        setup.origin.route("/live/score", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "1-0"))
        let ranged = try await setup.send(
            "/video", fields: [HTTPField(name: .range, value: "bytes=0-3"), HTTPField(name: .cacheControl, value: "only-if-cached")]
        )
        #expect(ranged.head.status.code == 504)
        #expect(ranged.cacheStatus == .unsatisfiable)
        #expect(setup.origin.requestCount(for: "/video") == 0)

        let onlyIfCached = try await setup.send("/live/score", fields: [HTTPField(name: .cacheControl, value: "only-if-cached")])
        #expect(onlyIfCached.head.status.code == 504)
        await #expect(throws: CacheChainError.self) {
            _ = try await setup.send("/live/score", cachePolicy: .returnCacheDataDontLoad)
        }
        #expect(setup.origin.requestCount(for: "/live/score") == 0)
        try await setup.finish()
    }

    @Test("an origin cannot write into the trace, and a rule's lifetime never goes to an error page (issue 46.7)")
    func overridesAreOurs() async throws {
        let setup = try await Setup(.memory, overrides: [PolicyOverrideRule("pinned", pathPrefix: "/pinned/", freshness: .always(.seconds(120)))])
        setup.origin.route("/evil", LoopbackRoute(headers: [("Cache-Control", "max-age=60"), ("CacheChain-Override", "rule 'evil': max-age=99999")], body: "x"))
        let evil = try await setup.send("/evil")
        #expect(!evil.trace.contains { $0.code == .policyOverride })
        #expect(try await setup.send("/evil").trace.allSatisfy { $0.code != .policyOverride })

        setup.origin.route("/pinned/missing", LoopbackRoute(status: 404, headers: [], body: "not found"))
        _ = try await setup.send("/pinned/missing")
        let again = try await setup.send("/pinned/missing")
        #expect(again.cacheStatus != .hit, "a 404 gets no lifetime from the rule")
        #expect(setup.origin.requestCount(for: "/pinned/missing") == 2)
        try await setup.finish()
    }

    @Test("concurrent body-keyed POSTs with the same body share one trip (issue 46.7)")
    func bodyKeyedCoalescing() async throws {
        let setup = try await Setup(.memory, bodyRules: [BodyKeyedCachingRule("gql", pathPrefix: "/gql")])
        let gate = LoopbackGate()
        setup.origin.route("/gql") { request in
            var route = LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "answer \(String(decoding: request.body, as: UTF8.self))")
            route.gate = gate
            return route
        }
        let bodies = try await withThrowingTaskGroup(of: String?.self) { group in
            for index in 0..<60 {
                group.addTask { try await setup.send("/gql", method: .post, body: "{\"q\":\(index % 3)}").body.string }
            }
            try await waitUntil("three trips reached the origin") { setup.origin.requestCount(for: "/gql") >= 3 }
            try await Task.sleep(for: .milliseconds(200))  // a window for a fourth trip, which must not come
            gate.open()
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(bodies.count == 60)
        #expect(Set(bodies.compactMap { $0 }) == ["answer {\"q\":0}", "answer {\"q\":1}", "answer {\"q\":2}"])
        #expect(setup.origin.requestCount(for: "/gql") == 3)
        try await setup.finish()
    }
}
