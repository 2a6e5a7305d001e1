import CacheChain
import CacheChainBatch
import CacheChainLoopback
import Foundation
import Testing

/// The cache flags every subcommand shares (`CacheOptions`, issue 31.7): the same names and defaults in each
/// `--help`, each subcommand's parsing of them, `--backend encrypted` meaning `--encrypt-https`, and `batch`
/// finding the shared default directory.
@Suite("cachechain: one set of cache flags for every subcommand", .tags(.integration))
struct CLISharedCacheOptionsTests: BatchSubprocessSuite {
    static let sharedHelp = [
        "--backend", "Default: disk (batch: memory)", "--cache-dir", "$XDG_CACHE_HOME/cachechain", "--disk-capacity",
        "default: 1 GiB", "--memory-capacity", "default: 64 MiB", "--encrypt-https", "--key-file", "--create-key", "--redis-url",
    ]

    @Test("each subcommand's --help lists the shared cache flags with the same defaults", arguments: [
        ["get", "http://127.0.0.1:9/"], ["stats"], ["ls"], ["purge"], ["explain", "http://127.0.0.1:9/"], ["batch"],
    ])
    func help(command: [String]) async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let help = try await run(command + ["--help"], in: directory)
        #expect(help.status == 0)
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for word in Self.sharedHelp { #expect(text.contains(word), "\(command[0]) --help lacks \(word)") }
    }

    @Test("each subcommand refuses the shared flags it does not use: exit 64 and what to do", arguments: [
        (["get", "http://127.0.0.1:9/x", "--backend", "memory"], "does not use --backend memory: use disk, encrypted, redis, tiered-redis"),
        (["get", "http://127.0.0.1:9/x", "--backend", "encrypted"], "needs --key-file"),
        (["stats", "--backend", "redis", "--redis-url", "redis://127.0.0.1"], "stats works on a cache directory"),
        (["ls", "--create-key"], "--create-key is only used by the commands that store"),
        (["purge", "--all", "--backend", "tiered-redis", "--redis-url", "redis://127.0.0.1"], "purge works on a cache directory"),
        (["explain", "http://127.0.0.1:9/x", "--encrypt-https", "--backend", "redis"], "--encrypt-https is used with --backend disk"),
        (["batch", "--disk-capacity=-1"], "--disk-capacity must be 0 or more bytes"),
        (["batch", "--backend", "memory", "--cache-dir", "/tmp/x"], "--cache-dir is only used by the disk"),
        (["batch", "--encrypt-https"], "--encrypt-https is used with --backend disk"),
    ] as [([String], String)])
    func usageErrors(arguments: [String], message: String) async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await run(arguments, in: directory)
        #expect(result.status == 64, "\(arguments)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test("--backend encrypted is --encrypt-https: get stores with one spelling, stats reads with the other")
    func encryptedSpellings() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start(tls: true)
        origin.route("/a", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "secret"))
        let cache = ["--cache-dir", directory.appendingPathComponent("cache").path, "--key-file", directory.appendingPathComponent("k").path]
        let certificate = try LoopbackCertificate.writeCertificate(to: directory.path)
        let stored = try await run(["get", origin.url("/a"), "--backend", "encrypted", "--create-key", "--cacert", certificate] + cache, in: directory)
        #expect(stored.status == 0, "\(stored.stderr)")
        let stats = try await run(["stats", "--encrypt-https", "--json"] + cache, in: directory)
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(stats.stdout.contains("\"encrypted_https\":true"))
        let hit = try await run(["get", origin.url("/a"), "--encrypt-https", "--cacert", certificate] + cache, in: directory)
        #expect(hit.stderr.contains("HIT 200"), "\(hit.stderr)")
        #expect(origin.requestCount(for: "/a") == 1)
        try await origin.shutdown()
    }

    @Test("batch --backend disk without --cache-dir uses the shared default, $XDG_CACHE_HOME/cachechain")
    func batchDefaultDirectory() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let batch = try BatchProcess(["batch", "--backend", "disk"], directory: directory, environment: ["XDG_CACHE_HOME": directory.path])
        try batch.send(#"{"type":"hello","protocol":1}"#)
        try batch.closeInput()
        let hello = try await batch.nextMessage()
        #expect(hello["config"].map { "\($0)" }?.contains("disk backend in \(directory.path)/cachechain") == true, "\(hello)")
        #expect(await batch.exitStatus() == 0)
        #expect(FileManager.default.fileExists(atPath: directory.path + "/cachechain/cachechain-format"))
    }
}
