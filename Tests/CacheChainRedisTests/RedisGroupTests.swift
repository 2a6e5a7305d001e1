import CacheChain
import CacheChainRedis
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// `RedisStorage.removeEntries(inGroups:origin:)` (RFC 9875, issue 45.9): a group's variants are removed through
/// the set of their origin and group, without a `SCAN` of the database.
@Suite("RedisStorage: cache groups removed without SCAN", .tags(.integration, .redis))
struct RedisGroupTests {
    func grouped(_ path: String, _ groups: String?, language: String? = nil, authority: String = "groups.test") -> CacheEntry {
        var request = HTTPRequest(method: .get, scheme: "https", authority: authority, path: path)
        var response = HTTPResponse(status: .ok)
        response.headerFields[.cacheControl] = "max-age=600"
        if let groups { response.headerFields[HTTPField.Name("Cache-Groups")!] = groups }
        if let language {
            request.headerFields[.acceptLanguage] = language
            response.headerFields[.vary] = "Accept-Language"
        }
        return CacheEntry(request: request, cached: CachedResponse(response: response, body: "grouped", requestTime: Date()))
    }

    @Test("removes group a's variants on the origin, keeps group b, another origin and an ungrouped variant, and sends no SCAN")
    func removesThroughGroupSet() async throws {
        try await withRedis { server in
            let redis = storage(server)
            let doomed = [grouped("/g/1", "\"a\""), grouped("/g/v", "\"b\", \"a\"", language: "fr")]
            let kept = [grouped("/g/2", "\"b\""), grouped("/g/1", "\"a\"", authority: "other.test"), grouped("/g/v", nil, language: "en")]
            for entry in doomed + kept { try await redis.store(entry) }
            let monitor = try RedisMonitor(port: server.port, output: server.directory + "/monitor-groups.log")
            defer { monitor.stop() }
            try await waitUntil("redis-cli MONITOR started") { monitor.output.hasPrefix("OK") }
            try await redis.removeEntries(inGroups: ["a"], origin: "https://groups.test")
            for entry in doomed {
                #expect(try await redis.entries(for: entry.key).allSatisfy { $0.variantKey != entry.variantKey }, "\(entry.key)")
            }
            try await waitUntil("MONITOR logged the removal") { monitor.output.contains("EVAL") }
            #expect(!monitor.output.uppercased().contains("\"SCAN\""), "\(monitor.output)")
            for entry in kept {
                #expect(try await redis.entries(for: entry.key).contains { $0.variantKey == entry.variantKey }, "\(entry.key)")
            }
        }
    }
}
