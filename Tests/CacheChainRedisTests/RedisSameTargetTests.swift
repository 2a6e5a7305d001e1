import CacheChain
import CacheChainRedis
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// `RedisStorage.removeEntries(sameTargetAs:)` (issue 45.10): a URI's `QUERY` entries are removed through the
/// target's set, without a `SCAN` of the database.
@Suite("RedisStorage: a target's QUERY entries removed without SCAN", .tags(.integration, .redis))
struct RedisSameTargetTests {
    func entry(_ path: String, method: String, discriminator: String = "") -> CacheEntry {
        var entry = StorageConformanceSuite.makeEntry(path: path)
        entry.key.method = method
        entry.key.discriminator = discriminator
        return entry
    }

    @Test("removes every QUERY of the URI, keeps the GET and another URI's QUERY, and sends no SCAN")
    func removesThroughTargetSet() async throws {
        try await withRedis { server in
            let redis = storage(server)
            let queries = [entry("/search", method: "QUERY", discriminator: "content-sha256=aa"), entry("/search", method: "QUERY", discriminator: "content-sha256=bb")]
            let kept = [entry("/search", method: "GET"), entry("/other", method: "QUERY", discriminator: "content-sha256=aa")]
            for stored in queries + kept { try await redis.store(stored) }
            let monitor = try RedisMonitor(port: server.port, output: server.directory + "/monitor-target.log")
            defer { monitor.stop() }
            try await waitUntil("redis-cli MONITOR started") { monitor.output.hasPrefix("OK") }
            try await redis.removeEntries(sameTargetAs: queries[0].key)
            for query in queries { #expect(try await redis.entries(for: query.key).isEmpty, "\(query.key)") }
            try await waitUntil("MONITOR logged the removal") { monitor.output.contains("EVAL") }
            #expect(!monitor.output.uppercased().contains("\"SCAN\""), "\(monitor.output)")
            for other in kept { #expect(try await redis.entries(for: other.key).count == 1, "\(other.key)") }
        }
    }
}
