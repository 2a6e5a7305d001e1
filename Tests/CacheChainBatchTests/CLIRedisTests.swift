import CacheChainBatch
import CacheChainLoopback
import CacheChainTesting
import Foundation
import Testing

/// `cachechain get` and `cachechain batch` over `--backend redis` and `tiered-redis`, as subprocesses against a
/// real `redis-server` and a loopback origin.
@Suite("cachechain get and batch with a Redis backend", .tags(.integration))
struct CLIRedisTests: BatchSubprocessSuite {
    @Test("get: a MISS in one process is a HIT in the next through the same Redis, plain and tiered", arguments: ["redis", "tiered-redis"])
    func getSharesThroughRedis(backend: String) async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let redis = try await LocalRedisServer.start()
        defer { redis.stop() }
        let origin = try await LoopbackOrigin.start()
        origin.route("/doc", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "shared body"))
        let options = ["--backend", backend, "--redis-url", "redis://127.0.0.1:\(redis.port)/2", "--redis-namespace", "cli-\(backend)"]

        let first = try await run(["get", origin.url("/doc"), "--trace"] + options, in: directory)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "shared body")
        #expect(first.stderr.contains("MISS 200"), "\(first.stderr)")
        let second = try await run(["get", origin.url("/doc"), "--trace"] + options, in: directory)
        #expect(second.status == 0)
        #expect(second.stdout == "shared body")
        #expect(second.stderr.contains("HIT 200"), "\(second.stderr)")
        #expect(origin.requestCount(for: "/doc") == 1)
        let otherNamespace = try await run(["get", origin.url("/doc"), "--trace", "--backend", backend, "--redis-url", "redis://127.0.0.1:\(redis.port)/2", "--redis-namespace", "elsewhere"], in: directory)
        #expect(otherNamespace.stderr.contains("MISS 200"), "another namespace shares nothing")
        try await origin.shutdown()
    }

    @Test("batch --backend tiered-redis: the hello names Redis; a second session (redis) hits what the first stored")
    func batchSharesThroughRedis() async throws {
        let redis = try await LocalRedisServer.start()
        defer { redis.stop() }
        let url = "redis://127.0.0.1:\(redis.port)/3"
        var shared = ""
        try await withBatch(["--backend", "tiered-redis", "--redis-url", url, "--redis-namespace", "batch"], checkHello: { hello in
            guard case .string(let config)? = hello["config"] else {
                Issue.record("no config in \(hello)")
                return
            }
            #expect(config.contains("tiered backend: memory 67108864 bytes over Redis 127.0.0.1:\(redis.port) database 3, namespace batch"), "\(config)")
        }) { batch, origin, _ in
            origin.route("/a", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "from redis"))
            shared = origin.url("/a")
            let first = try await roundTrip(batch, 1, shared)
            let second = try await roundTrip(batch, 2, shared)
            #expect(first["cache_status"] == .string("miss"))
            #expect(second["cache_status"] == .string("hit"))
            #expect(origin.requestCount(for: "/a") == 1)
            // The origin stops with the session: the next session must answer from Redis alone.
            try await withBatch(["--backend", "redis", "--redis-url", url, "--redis-namespace", "batch"]) { other, _, _ in
                let hit = try await roundTrip(other, 1, shared)
                #expect(hit["cache_status"] == .string("hit"), "\(hit)")
                #expect(hit["body"] == .string("from redis"))
            }
        }
    }

    @Test("Redis down: get and batch still answer from the origin (exit 0), and the trace says why nothing was cached")
    func redisDownFailsOpen() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let redis = try await LocalRedisServer.start()
        redis.kill()  // its port now has nothing listening
        let down = ["--backend", "redis", "--redis-url", "redis://127.0.0.1:\(redis.port)/0"]
        let origin = try await LoopbackOrigin.start()
        origin.route("/doc", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "still served"))
        let get = try await run(["get", origin.url("/doc"), "--trace"] + down, in: directory)
        #expect(get.status == 0, "\(get.stderr)")
        #expect(get.stdout == "still served")
        #expect(get.stderr.contains("MISS 200"))
        #expect(get.stderr.contains("storage-error"), "\(get.stderr)")
        try await withBatch(down) { batch, batchOrigin, _ in
            batchOrigin.route("/b", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "b"))
            let reply = try await roundTrip(batch, 1, batchOrigin.url("/b"))
            #expect(reply["status"] == .integer(200))
            #expect(reply["body"] == .string("b"))
            #expect(reply["cache_status"] == .string("miss"))
        }
        try await origin.shutdown()
    }

    @Test(
        "Redis options are checked before anything runs: exit 64 with what is wrong, never the password",
        arguments: [
            (["get", "http://127.0.0.1:9/x", "--backend", "redis"], "--backend redis needs --redis-url"),
            (["get", "http://127.0.0.1:9/x", "--backend", "redis", "--redis-url", "http://:hunter2@127.0.0.1"], "scheme 'http'"),
            (["get", "http://127.0.0.1:9/x", "--backend", "redis", "--redis-url", "rediss://:hunter2@127.0.0.1"], "needs TLS"),
            (["get", "http://127.0.0.1:9/x", "--redis-url", "redis://127.0.0.1"], "--redis-url is only used by --backend redis or tiered-redis"),
            (["get", "http://127.0.0.1:9/x", "--backend", "redis", "--redis-url", "redis://127.0.0.1", "--cache-dir", "/tmp/x"], "--cache-dir is only used by the disk, tiered and encrypted backends"),
            (["batch", "--backend", "tiered-redis"], "--backend tiered-redis needs --redis-url"),
            (["batch", "--backend", "redis", "--redis-url", "redis://alice:hunter2@127.0.0.1"], "user name 'alice'"),
        ]
    )
    func usageErrors(arguments: [String], message: String) async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await run(arguments, in: directory)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!result.stderr.contains("hunter2"))
    }
}
