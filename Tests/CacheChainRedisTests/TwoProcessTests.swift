import CacheChainLoopback
import CacheChainTesting
import Foundation
import Testing

@Suite("Two processes share one Redis", .tags(.integration, .redis))
struct TwoProcessTests {
    /// The `SharedRedisCache` example binary, built next to the test bundle by `swift build --build-tests`.
    static func exampleBinary() throws -> URL {
        let directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let binary = directory.appendingPathComponent("SharedRedisCache")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw RedisTestError("\(binary.path) is missing: build everything first (swift build --build-tests, as scripts/test.sh does)")
        }
        return binary
    }

    static func runInstance(_ binary: URL, port: Int, url: String, namespace: String) throws -> String {
        let process = try ChildProcess(binary.path, ["--redis-port", String(port), "--url", url, "--namespace", namespace], standardOutput: .pipe)
        let output = process.readOutput()
        let status = process.waitUntilExit()
        guard status == 0 else { throw RedisTestError("instance exited with \(status): \(output)") }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("the second process is a HIT without touching the origin")
    func secondProcessHits() async throws {
        let binary = try Self.exampleBinary()
        let redis = try await LocalRedisServer.start()
        defer { redis.stop() }
        let origin = try await LoopbackOrigin.start()
        origin.route("/shared", LoopbackRoute(headers: [("Cache-Control", "public, max-age=300")], body: "from the origin"))
        let url = origin.url("/shared")
        let namespace = "two-process-\(UUID().uuidString)"
        #expect(try Self.runInstance(binary, port: redis.port, url: url, namespace: namespace) == "MISS 200 \"from the origin\"")
        #expect(try Self.runInstance(binary, port: redis.port, url: url, namespace: namespace) == "HIT 200 \"from the origin\"")
        #expect(origin.requestCount(for: "/shared") == 1)
        try await origin.shutdown()
    }

    @Test("Redis unreachable: an instance answers from the origin as a MISS and exits 0 (it used to abort on a double free)")
    func redisUnreachable() async throws {
        let binary = try Self.exampleBinary()
        let redis = try await LocalRedisServer.start()
        let port = redis.port
        redis.stop()
        let origin = try await LoopbackOrigin.start()
        origin.route("/shared", LoopbackRoute(headers: [("Cache-Control", "public, max-age=300")], body: "from the origin"))
        let output = try Self.runInstance(binary, port: port, url: origin.url("/shared"), namespace: "unreachable")
        #expect(output == "MISS 200 \"from the origin\"")
        try await origin.shutdown()
    }
}

struct RedisTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
