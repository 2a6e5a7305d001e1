import CacheChain
import CacheChainEncryption
import CacheChainRedis
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// The encrypted HTTPS plugin in front of Redis: what leaves the process is sealed.
@Suite("Encrypted HTTPS entries in Redis", .tags(.integration, .redis))
struct EncryptedRedisTests {
    static let markers = ["REDIS-SECRET-BODY-90af", "REDIS-SECRET-HEADER-11c2", "/vault/account-5521", "vault.example"]

    @Test("MONITOR and an RDB dump show no URL, header or body of an HTTPS response; a second instance with the key hits")
    func noPlaintextInRedis() async throws {
        try await withRedis { server in
            let monitorLog = server.directory + "/monitor.log"
            let monitor = try RedisMonitor(port: server.port, output: monitorLog)
            defer { monitor.stop() }
            try await waitUntil("redis-cli MONITOR started") { monitor.output.hasPrefix("OK") }

            let namespace = "sealed-\(UUID().uuidString)"
            let keys = InMemoryKeyProvider(key: try .random())
            let origin = ScriptedTransport()
            // A small body (one Redis hash) and a large one (chunked in Redis, several 64 KiB segments).
            let small = "\(Self.markers[0]) small"
            let large = String(repeating: "\(Self.markers[0]) large ", count: 12_000)
            origin.route(Self.markers[2], fields: [("Cache-Control", "max-age=600"), ("X-Secret", Self.markers[1])], body: small)
            origin.route(Self.markers[2] + "/large", fields: [("Cache-Control", "max-age=600")], body: large)

            func instance() -> HTTPCacheClient {
                var configuration = HTTPCacheClient.Configuration(storage: MemoryStorage(capacity: 8 << 20))
                configuration.encryptHTTPS(with: EncryptedStorage(wrapping: storage(server, namespace: namespace), keys: keys))
                return HTTPCacheClient(transport: origin, configuration: configuration)
            }
            let first = instance(), second = instance()
            for path in [Self.markers[2], Self.markers[2] + "/large"] {
                let request = HTTPRequest(method: .get, scheme: "https", authority: Self.markers[3], path: path)
                #expect(try await first.data(for: request).cacheStatus == .miss)
                let shared = try await second.data(for: request)
                #expect(shared.cacheStatus == .hit, "the second instance reads the sealed entry from Redis")
                #expect(shared.body.string == (path.hasSuffix("/large") ? large : small))
            }
            #expect(origin.receivedRequests.count == 2)

            try RedisCLI.run(port: server.port, ["SAVE"])
            let dump = try #require(FileManager.default.contents(atPath: server.directory + "/dump.rdb"))
            #expect(dump.count > large.utf8.count / 2, "the dump holds the sealed bodies")
            try await waitUntil("MONITOR logged the stores") { monitor.output.contains("EVALSHA") || monitor.output.contains("EVAL") }
            let traffic = Data(monitor.output.utf8)
            #expect(traffic.count > 1000)
            for marker in Self.markers {
                let inDump = dump.range(of: Data(marker.utf8)) != nil
                let inTraffic = traffic.range(of: Data(marker.utf8)) != nil
                #expect(!inDump, "\(marker) in dump.rdb")
                #expect(!inTraffic, "\(marker) in the MONITOR stream")
            }
        }
    }
}

/// `redis-cli MONITOR` writing every command the server receives to a file.
final class RedisMonitor: Sendable {
    private let process: ChildProcess
    private let path: String

    init(port: Int, output path: String) throws {
        self.path = path
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        process = try ChildProcess("/usr/bin/redis-cli", ["-p", String(port), "MONITOR"], standardOutput: .path(path))
    }

    /// What MONITOR printed so far.
    var output: String { (FileManager.default.contents(atPath: path)).map { String(decoding: $0, as: UTF8.self) } ?? "" }

    /// Kills redis-cli (SIGKILL) and waits for it to exit.
    func stop() {
        guard process.isRunning else { return }
        process.send(SIGKILL)
        process.waitUntilExit()
    }
}
