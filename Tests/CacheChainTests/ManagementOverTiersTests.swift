import CacheChain
import CacheChainTesting
import Foundation
import Testing

private enum UserKey: CacheUserInfoKey {
    typealias Value = String
    static let name = "user"
}

@Suite("Management API over memory + disk")
struct ManagementOverTiersTests {
    func makeClient(_ path: String) throws -> (HTTPCacheClient, TieredStorage) {
        let storage = TieredStorage(memory: MemoryStorage(capacity: 1 << 20), disk: try DiskStorage(directory: path, capacity: 8 << 20))
        return (HTTPCacheClient(transport: ScriptedTransport(), configuration: .init(storage: storage)), storage)
    }

    func store(_ client: HTTPCacheClient, _ url: String, user: String? = nil, at seconds: TimeInterval = 0) async throws -> HTTPRequest {
        let request = try HTTPRequest(url: url)
        var info = CacheUserInfo()
        info[UserKey.self] = user
        let date = Date(timeIntervalSince1970: 1_700_000_000 + seconds)
        let response = CachedResponse(response: HTTPResponse(status: .ok), body: PipelineBody(string: url), userInfo: info, requestTime: date)
        try await client.storeCachedResponse(response, for: request)
        return request
    }

    /// Whether a request's entry is in neither tier.
    func isGone(_ storage: TieredStorage, _ request: HTTPRequest) async throws -> Bool {
        let key = CacheKey(request)
        let inMemory = try await storage.memory.entries(for: key)
        let onDisk = try await storage.disk.entries(for: key)
        return inMemory.isEmpty && onDisk.isEmpty
    }

    @Test("remove one, purge by URL prefix and by userInfo tag, remove all: exact over both tiers")
    func purges() async throws {
        let path = NSTemporaryDirectory() + "cachechain-management-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (client, storage) = try makeClient(path)
        let one = try await store(client, "https://api.test/one")
        let user42 = try await store(client, "https://api.test/users/42/profile")
        let user7 = try await store(client, "https://api.test/users/7/profile", user: "7")
        let tagged = try await store(client, "https://api.test/feed", user: "7")
        let kept = try await store(client, "https://api.test/kept", user: "8")
        #expect(await client.currentDiskUsage > 0)
        #expect(await client.diskCapacity == 8 << 20)
        #expect(await client.memoryCapacity == 1 << 20)

        try await client.removeCachedResponse(for: one)
        #expect(try await isGone(storage, one))
        try await client.removeCachedResponses(urlPrefix: "https://api.test/users/42/")
        #expect(try await isGone(storage, user42))
        #expect(try await !isGone(storage, user7))
        try await client.removeCachedResponses(taggedWith: UserKey.self, equalTo: "7")
        #expect(try await isGone(storage, user7))
        #expect(try await isGone(storage, tagged))
        #expect(try await client.cachedResponse(for: kept)?.body.string == "https://api.test/kept")
        try await client.removeAllCachedResponses()
        #expect(try await isGone(storage, kept))
        #expect(await client.currentDiskUsage == 0)
        #expect(await client.currentMemoryUsage == 0)
    }

    @Test("removeCachedResponses(since:) removes what was stored at or after the date in both tiers")
    func since() async throws {
        let path = NSTemporaryDirectory() + "cachechain-management-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let storage = TieredStorage(memory: MemoryStorage(), disk: try DiskStorage(directory: path))
        let old = StorageConformanceSuite.makeEntry(path: "/old", storedAt: 10)
        let new = StorageConformanceSuite.makeEntry(path: "/new", storedAt: 20)
        try await storage.store(old)
        try await storage.store(new)
        let client = HTTPCacheClient(transport: ScriptedTransport(), configuration: .init(storage: storage))
        let diskBefore = await client.currentDiskUsage
        try await client.removeCachedResponses(since: new.storedAt)
        #expect(try await storage.memory.entries(for: new.key).isEmpty)
        #expect(try await storage.disk.entries(for: new.key).isEmpty)
        #expect(try await storage.disk.entries(for: old.key).count == 1)
        #expect(await client.currentDiskUsage < diskBefore)
    }
}

@Suite("README: disk storage snippet")
struct DiskSnippetTests {
    @Test("the README's tiered disk set-up compiles and caches")
    func snippet() async throws {
        let directory = NSTemporaryDirectory() + "myapp-http-cache-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // From README.md, "Disk storage" (CurlTransport replaced by a scripted origin).
        let storage = TieredStorage(
            memory: MemoryStorage(capacity: 20 << 20, maximumEntryCost: 1 << 20),
            disk: try DiskStorage(configuration: .init(directory: directory, capacity: 500 << 20, durability: .fast))
        )
        let origin = ScriptedTransport()
        origin.route("/a", fields: [("Cache-Control", "max-age=60")], body: "a")
        let client = HTTPCacheClient(transport: origin, configuration: .init(storage: storage))
        let request = try HTTPRequest(url: "http://origin.test/a")
        _ = try await client.data(for: request)
        #expect(try await client.data(for: request).cacheStatus == .hit)
        #expect(await client.currentDiskUsage > 0)
        #expect(origin.requestCount(for: "/a") == 1)
    }
}
