import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainRedis
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// A Redis that refuses a read (`NOAUTH`: it wants a password the configuration does not give) is a storage error,
/// not "nothing stored" (issue 46.7).
@Suite("Redis refusing a lookup: a storage error, not an empty cache", .tags(.integration, .redis))
struct RedisRefusedReadTests {
    @Test("NOAUTH on lookup: entries(for:) throws storage-failed naming NOAUTH; through the client, a miss whose trace says so")
    func noAuthIsAStorageError() async throws {
        let server = try await LocalRedisServer.start(password: "needed")
        defer { server.stop() }
        let events = LockedValue<[CacheEvent]>([])
        let storage = RedisStorage(
            configuration: .init(endpoint: .tcp(host: "127.0.0.1", port: server.port), namespace: "noauth-\(UUID().uuidString)"),
            events: CacheEventSink { event in events.withLock { $0.append(event) } }
        )
        let key = CacheKey(method: "GET", scheme: "http", authority: "example.com", path: "/item")
        let error = await #expect(throws: CacheChainError.self) { try await storage.entries(for: key) }
        #expect(error?.code == .storageFailed)
        #expect(error?.message.contains("NOAUTH") == true, "\(String(describing: error))")
        #expect(error?.message.contains("password") == true)

        let origin = try await LoopbackOrigin.start()
        origin.route("/item", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "from the origin"))
        let client = HTTPCacheClient(transport: CurlTransport(), configuration: .init(storage: storage))
        let response = try await client.data(for: HTTPRequest(url: origin.url("/item")))
        #expect(response.cacheStatus == .miss)
        #expect(response.body.string == "from the origin")
        let lookupErrors = response.trace.filter { $0.code == .storageError }.map(\.detail)
        #expect(lookupErrors.contains { $0.contains("NOAUTH") }, "the trace names the refusal: \(response.trace)")
        try await client.shutdown()
        try await origin.shutdown()
    }
}
