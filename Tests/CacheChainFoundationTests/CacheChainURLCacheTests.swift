import CacheChain
import CacheChainCurl
import CacheChainFoundation
import CacheChainLoopback
import CacheChainTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// A cache over its own directory, and how to open another instance over it (a process restart).
struct CacheDirectory {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("cachechain-urlcache-\(UUID().uuidString)")

    func open(memory: Int = 1 << 20, disk: Int = 8 << 20) -> CacheChainURLCache {
        CacheChainURLCache(memoryCapacity: memory, diskCapacity: disk, directory: url)
    }

    /// A cache over the same kind of tiers whose client reads a manual clock.
    func open(clock: ManualClock) throws -> CacheChainURLCache {
        let storage = TieredStorage(memory: MemoryStorage(capacity: 1 << 20), disk: try DiskStorage(directory: url.path, capacity: 8 << 20))
        return CacheChainURLCache(client: HTTPCacheClient(transport: CurlTransport(), configuration: .init(storage: storage, clock: clock)))
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// One of Apple's documented behaviours of a `URLCache` member, checked on a fresh cache.
struct DocumentedBehaviour: Sendable, CustomTestStringConvertible {
    let member: String
    let documented: String
    let check: @Sendable (CacheDirectory) throws -> Void
    var testDescription: String { "\(member): \(documented)" }
}

private let url = URL(string: "https://api.example.com/items?page=1") ?? URL(fileURLWithPath: "/")
private let otherURL = URL(string: "https://api.example.com/other") ?? URL(fileURLWithPath: "/")

private func response(_ body: String, to target: URL = url, policy: URLCache.StoragePolicy = .allowed, userInfo: [AnyHashable: Any]? = nil) -> CachedURLResponse {
    let fields = ["Cache-Control": "max-age=60", "Content-Type": "text/plain"]
    let head: URLResponse = HTTPURLResponse(url: target, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: fields)
        ?? URLResponse(url: target, mimeType: nil, expectedContentLength: 0, textEncodingName: nil)
    return CachedURLResponse(response: head, data: Data(body.utf8), userInfo: userInfo, storagePolicy: policy)
}

private func body(_ cached: CachedURLResponse?) -> String? {
    cached.map { String(decoding: $0.data, as: UTF8.self) }
}

/// Stores four responses of 20 KB under four URLs.
private func storeFourResponses(in cache: URLCache) {
    for index in 0..<4 {
        let target = URL(string: "https://api.example.com/\(index)") ?? url
        cache.storeCachedResponse(response(String(repeating: "x", count: 20_000), to: target), for: URLRequest(url: target))
    }
}

/// Apple's documentation of `URLCache`, member by member (see the seeds), as a table.
let documentedBehaviours: [DocumentedBehaviour] = [
    DocumentedBehaviour(member: "cachedResponse(for:)", documented: "nil when nothing is stored for the request") { dir in
        #expect(dir.open().cachedResponse(for: URLRequest(url: url)) == nil)
    },
    DocumentedBehaviour(member: "storeCachedResponse(_:for:)", documented: "the stored response, data and policy come back, also after a restart") { dir in
        dir.open().storeCachedResponse(response("stored"), for: URLRequest(url: url))
        for cache in [dir.open(), dir.open()] {
            let cached = try #require(cache.cachedResponse(for: URLRequest(url: url)))
            #expect(body(cached) == "stored")
            #expect(cached.storagePolicy == .allowed)
            let http = try #require(cached.response as? HTTPURLResponse)
            #expect(http.statusCode == 200 && http.url == url)
            #expect(http.value(forHTTPHeaderField: "Content-Type") == "text/plain")
        }
    },
    DocumentedBehaviour(member: "storeCachedResponse(_:for:)", documented: "a later store for the same request replaces the earlier one") { dir in
        let cache = dir.open()
        cache.storeCachedResponse(response("first"), for: URLRequest(url: url))
        cache.storeCachedResponse(response("second"), for: URLRequest(url: url))
        #expect(body(cache.cachedResponse(for: URLRequest(url: url))) == "second")
        #expect(body(dir.open().cachedResponse(for: URLRequest(url: url))) == "second")
    },
    DocumentedBehaviour(member: "StoragePolicy.notAllowed", documented: "storage is not allowed in any fashion") { dir in
        let cache = dir.open()
        cache.storeCachedResponse(response("no", policy: .notAllowed), for: URLRequest(url: url))
        #expect(cache.cachedResponse(for: URLRequest(url: url)) == nil)
        #expect(cache.currentMemoryUsage == 0 && cache.currentDiskUsage == 0)
    },
    DocumentedBehaviour(member: "StoragePolicy.allowedInMemoryOnly", documented: "stored in memory only, no disk storage: gone after a restart") { dir in
        let cache = dir.open()
        cache.storeCachedResponse(response("memory", policy: .allowedInMemoryOnly), for: URLRequest(url: url))
        #expect(cache.cachedResponse(for: URLRequest(url: url))?.storagePolicy == .allowedInMemoryOnly)
        #expect(cache.currentDiskUsage == 0)
        #expect(dir.open().cachedResponse(for: URLRequest(url: url)) == nil)
    },
    DocumentedBehaviour(member: "CachedURLResponse.userInfo", documented: "property-list values survive a store and a restart") { dir in
        let info: [AnyHashable: Any] = ["user": "ada", "visits": 7, "ratio": 0.5, "pinned": true,
                                        "seen": Date(timeIntervalSince1970: 1_700_000_000), "tags": ["a", "b"], "raw": Data([1, 2])]
        dir.open().storeCachedResponse(response("info", userInfo: info), for: URLRequest(url: url))
        let restored = try #require(dir.open().cachedResponse(for: URLRequest(url: url))?.userInfo)
        #expect(restored["user"] as? String == "ada")
        #expect(restored["visits"] as? Int == 7)
        #expect(restored["ratio"] as? Double == 0.5)
        #expect(restored["pinned"] as? Bool == true)
        #expect(restored["seen"] as? Date == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(restored["tags"] as? [String] == ["a", "b"])
        #expect(restored["raw"] as? Data == Data([1, 2]))
    },
    DocumentedBehaviour(member: "CachedURLResponse.userInfo", documented: "values that are not property-list types are left out; the rest is kept") { dir in
        struct Opaque {}
        dir.open().storeCachedResponse(response("mixed", userInfo: ["kept": "yes", "dropped": Opaque(), 42: "non-string key"]), for: URLRequest(url: url))
        let restored = try #require(dir.open().cachedResponse(for: URLRequest(url: url)))
        #expect(body(restored) == "mixed")
        #expect(restored.userInfo?.count == 1)
        #expect(restored.userInfo?["kept"] as? String == "yes")
    },
    DocumentedBehaviour(member: "removeCachedResponse(for:)", documented: "removes that request's response only, on every tier") { dir in
        let cache = dir.open()
        cache.storeCachedResponse(response("a"), for: URLRequest(url: url))
        cache.storeCachedResponse(response("b", to: otherURL), for: URLRequest(url: otherURL))
        cache.removeCachedResponse(for: URLRequest(url: url))
        #expect(cache.cachedResponse(for: URLRequest(url: url)) == nil)
        #expect(dir.open().cachedResponse(for: URLRequest(url: url)) == nil)
        #expect(body(dir.open().cachedResponse(for: URLRequest(url: otherURL))) == "b")
    },
    DocumentedBehaviour(member: "removeCachedResponses(since:)", documented: "clears the responses cached since the date, keeps older ones") { dir in
        let clock = ManualClock()
        let cache = try dir.open(clock: clock)
        cache.storeCachedResponse(response("old"), for: URLRequest(url: url))
        clock.advance(by: 60)
        let boundary = clock.now()
        clock.advance(by: 60)
        cache.storeCachedResponse(response("new", to: otherURL), for: URLRequest(url: otherURL))
        cache.removeCachedResponses(since: boundary)
        #expect(body(cache.cachedResponse(for: URLRequest(url: url))) == "old")
        #expect(cache.cachedResponse(for: URLRequest(url: otherURL)) == nil)
        #expect(dir.open().cachedResponse(for: URLRequest(url: otherURL)) == nil)
        #expect(body(dir.open().cachedResponse(for: URLRequest(url: url))) == "old")
    },
    DocumentedBehaviour(member: "removeAllCachedResponses()", documented: "clears the cache, memory and disk, also for a restarted instance") { dir in
        let cache = dir.open()
        cache.storeCachedResponse(response("a"), for: URLRequest(url: url))
        cache.storeCachedResponse(response("b", to: otherURL), for: URLRequest(url: otherURL))
        cache.removeAllCachedResponses()
        #expect(cache.currentMemoryUsage == 0 && cache.currentDiskUsage == 0)
        let restarted = dir.open()
        #expect(restarted.cachedResponse(for: URLRequest(url: url)) == nil && restarted.cachedResponse(for: URLRequest(url: otherURL)) == nil)
    },
    DocumentedBehaviour(member: "memoryCapacity, diskCapacity", documented: "the capacities given at creation, in bytes") { dir in
        let cache = dir.open(memory: 3 << 20, disk: 7 << 20)
        #expect(cache.memoryCapacity == 3 << 20)
        #expect(cache.diskCapacity == 7 << 20)
        #expect(dir.open(memory: 1 << 20, disk: 0).diskCapacity == 0)
    },
    DocumentedBehaviour(member: "currentMemoryUsage, currentDiskUsage", documented: "the bytes each tier holds, growing with stores") { dir in
        let cache = dir.open()
        #expect(cache.currentMemoryUsage == 0 && cache.currentDiskUsage == 0)
        cache.storeCachedResponse(response(String(repeating: "x", count: 10_000)), for: URLRequest(url: url))
        #expect(cache.currentMemoryUsage > 10_000)
        #expect(cache.currentDiskUsage > 10_000)
        #expect(dir.open().currentDiskUsage == cache.currentDiskUsage)
    },
    DocumentedBehaviour(member: "memoryCapacity (set)", documented: "the in-memory cache truncates its contents to the size given") { dir in
        let cache = dir.open(memory: 1 << 20, disk: 0)
        storeFourResponses(in: cache)
        let before = cache.currentMemoryUsage
        cache.memoryCapacity = before / 2
        #expect(cache.memoryCapacity == before / 2)
        #expect(cache.currentMemoryUsage <= before / 2 && cache.currentMemoryUsage > 0)
        cache.memoryCapacity = 0
        #expect(cache.currentMemoryUsage == 0)
    },
    DocumentedBehaviour(member: "diskCapacity (set)", documented: "the on-disk cache truncates its contents to the size given") { dir in
        let cache = dir.open(memory: 0, disk: 8 << 20)
        storeFourResponses(in: cache)
        let before = cache.currentDiskUsage
        cache.diskCapacity = before / 2
        #expect(cache.diskCapacity == before / 2)
        #expect(cache.currentDiskUsage <= before / 2 && cache.currentDiskUsage > 0)
        #expect(dir.open(memory: 0, disk: 8 << 20).currentDiskUsage == cache.currentDiskUsage)
    },
]

@Suite("CacheChainURLCache: Apple's documented URLCache behaviour, member by member")
struct CacheChainURLCacheTests {
    @Test(arguments: documentedBehaviours)
    func documented(_ behaviour: DocumentedBehaviour) async throws {
        let directory = CacheDirectory()
        defer { directory.remove() }
        // URLCache's members are synchronous and block their thread: never one of Swift's cooperative threads.
        try await offPool { try behaviour.check(directory) }
    }

    @Test("the data-task members act on the task's current request; getCachedResponse answers on a background queue")
    func dataTaskMembers() async throws {
        try await offPool { try await checkDataTaskMembers() }
    }

    private func checkDataTaskMembers() async throws {
        let directory = CacheDirectory()
        defer { directory.remove() }
        let cache = directory.open()
        let plain = URLSession(configuration: .ephemeral)
        defer { plain.invalidateAndCancel() }
        let task = plain.dataTask(with: url)
        cache.storeCachedResponse(response("via task"), for: task)
        #expect(body(cache.cachedResponse(for: URLRequest(url: url))) == "via task")
        let answer = LockedValue<CachedURLResponse??>(nil)
        cache.getCachedResponse(for: task) { cached in answer.withLock { $0 = .some(cached) } }
        try await waitUntil("the completion handler ran") { answer.withLock { $0 != nil } }
        #expect(body(answer.withLock { $0 ?? nil }) == "via task")
        cache.removeCachedResponse(for: task)
        #expect(cache.cachedResponse(for: URLRequest(url: url)) == nil)
    }

    @Test("URLCache.shared can be a CacheChainURLCache, and a session using its client reads and writes the same entries")
    func sharedCacheAndSession() async throws {
        try await offPool { try await checkSharedCacheAndSession() }
    }

    private func checkSharedCacheAndSession() async throws {
        let directory = CacheDirectory()
        defer { directory.remove() }
        let origin = try await LoopbackOrigin.start()
        origin.route("/doc", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "from the origin"))
        let previous = URLCache.shared
        let cache = directory.open()
        URLCache.shared = cache
        defer { URLCache.shared = previous }
        #expect(URLCache.shared === cache)
        let configuration = URLSessionConfiguration.default.usingCacheChain(cache.client)
        configuration.urlCache = URLCache.shared
        let session = URLSession(configuration: configuration)
        defer { session.invalidateAndCancel() }
        let docURL = try #require(URL(string: origin.url("/doc")))
        _ = try await session.data(from: docURL)
        #expect(body(URLCache.shared.cachedResponse(for: URLRequest(url: docURL))) == "from the origin")

        let seeded = try #require(URL(string: origin.url("/seeded")))
        URLCache.shared.storeCachedResponse(response("stored through URLCache", to: seeded), for: URLRequest(url: seeded))
        let (data, _) = try await session.data(from: seeded)
        #expect(String(decoding: data, as: UTF8.self) == "stored through URLCache")
        #expect(origin.requestCount(for: "/seeded") == 0)

        // FoundationNetworking asks the session's urlCache before each task; for a task CacheChain answers that
        // lookup would be repeated by the protocol, so the cache answers nil at once.
        let answer = LockedValue<CachedURLResponse??>(nil)
        cache.getCachedResponse(for: session.dataTask(with: seeded)) { cached in answer.withLock { $0 = .some(cached) } }
        try await waitUntil("the completion handler ran") { answer.withLock { $0 != nil } }
        #expect(answer.withLock { $0 ?? nil } == nil)
        try await origin.shutdown()
    }

    @Test("a disk tier that cannot be opened leaves a memory-only cache and says why")
    func unusableDirectory() async throws {
        try await offPool { try checkUnusableDirectory() }
    }

    private func checkUnusableDirectory() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cachechain-not-a-directory-\(UUID().uuidString)")
        try Data("file".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let cache = CacheChainURLCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 20, directory: file.appendingPathComponent("cache"))
        let error = try #require(cache.diskError)
        #expect(error.code == .storageFailed)
        cache.storeCachedResponse(response("memory"), for: URLRequest(url: url))
        #expect(body(cache.cachedResponse(for: URLRequest(url: url))) == "memory")
        #expect(cache.diskCapacity == 0)
    }
}
