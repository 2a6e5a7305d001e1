import CacheChain
import CacheChainRedis
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// Request secrets never reach Redis in clear, even where `Vary` names them; instances sharing the
/// configuration still share those variants.
@Suite("RedisStorage: no request secret at rest", .tags(.integration, .redis))
struct RedisSecretsAtRestTests {
    static let markers = ["REDIS-MARKER-AUTH-3c1d", "REDIS-MARKER-COOKIE-8e2b", "REDIS-MARKER-PROXY-0a9f"]

    static func request(_ path: String, cookie: String = "id=REDIS-MARKER-COOKIE-8e2b") -> HTTPRequest {
        var request = HTTPRequest(method: .get, scheme: "http", authority: "shop.test", path: path)
        request.headerFields[.authorization] = "Bearer REDIS-MARKER-AUTH-3c1d"
        request.headerFields[.cookie] = cookie
        request.headerFields[.proxyAuthorization] = "Basic REDIS-MARKER-PROXY-0a9f"
        return request
    }

    @Test("MONITOR and an RDB dump show no Authorization, Cookie or Proxy-Authorization value; a second instance hits its cookie's variant")
    func noSecretInRedis() async throws {
        try await withRedis { server in
            let monitor = try RedisMonitor(port: server.port, output: server.directory + "/monitor.log")
            defer { monitor.stop() }
            try await waitUntil("redis-cli MONITOR started") { monitor.output.hasPrefix("OK") }
            let namespace = "secrets-\(UUID().uuidString)"
            let origin = ScriptedTransport()
            origin.route("/plain", fields: [("Cache-Control", "max-age=600")], body: "plain")
            origin.route("/cookie", fields: [("Cache-Control", "max-age=600"), ("Vary", "Cookie")], body: "cookie")
            origin.route("/all", fields: [("Cache-Control", "max-age=600"), ("Vary", "Authorization, Cookie, Proxy-Authorization")], body: "all")
            func instance() -> HTTPCacheClient {
                HTTPCacheClient(transport: origin, configuration: .init(storage: storage(server, namespace: namespace)))
            }
            let first = instance(), second = instance()
            for path in ["/plain", "/cookie", "/all"] {
                #expect(try await first.data(for: Self.request(path)).cacheStatus == .miss)
                #expect(try await second.data(for: Self.request(path)).cacheStatus == .hit, "\(path) from the other instance")
            }
            #expect(try await second.data(for: Self.request("/cookie", cookie: "id=other")).cacheStatus == .miss)

            try RedisCLI.run(port: server.port, ["SAVE"])
            let dump = try #require(FileManager.default.contents(atPath: server.directory + "/dump.rdb"))
            try await waitUntil("MONITOR logged the stores") { monitor.output.contains("EVAL") }
            let traffic = Data(monitor.output.utf8)
            #expect(dump.range(of: Data("/cookie".utf8)) != nil, "the dump holds the entries")
            for marker in Self.markers + ["Bearer "] {
                #expect(dump.range(of: Data(marker.utf8)) == nil, "\(marker) in dump.rdb")
                #expect(traffic.range(of: Data(marker.utf8)) == nil, "\(marker) in the MONITOR stream")
            }
        }
    }
}
