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
    /// The flags of every subcommand that opens a cache (`CacheLocationOptions`).
    static let locationHelp = ["--backend", "Default: disk (batch: memory)", "--cache-dir", "$XDG_CACHE_HOME/cachechain", "--encrypt-https", "--key-file"]
    /// The flags of the subcommands that store (`CacheStoreOptions`): sizes with suffixes, each default said once.
    static let storeHelp = ["--disk-capacity", "else 1G", "--memory-capacity", "(default: 64M)", "--create-key", "--redis-url", "--redis-namespace"]

    @Test("each subcommand's --help lists the cache flags it takes, with the same defaults, and none it refuses (issue 44.7)", arguments: [
        (["get", "http://127.0.0.1:9/"], true), (["stats"], false), (["ls"], false), (["purge"], false),
        (["explain", "http://127.0.0.1:9/"], false), (["batch"], true),
    ])
    func help(command: [String], stores: Bool) async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let help = try await run(command + ["--help"], in: directory)
        #expect(help.status == 0)
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for word in Self.locationHelp { #expect(text.contains(word), "\(command[0]) --help lacks \(word)") }
        let options = text.components(separatedBy: "OPTIONS:").last ?? text  // the discussion may name other commands' flags
        for word in Self.storeHelp {
            #expect(options.contains(word) == stores, "\(command[0]) --help \(stores ? "lacks" : "lists") \(word)")
        }
        #expect(!text.contains("(default: 64M) (default"), "a default is said once")
    }

    @Test("each subcommand refuses the shared flags it does not use: exit 64 and what to do", arguments: [
        (["get", "http://127.0.0.1:9/x", "--backend", "memory"], "does not use --backend memory: use disk, encrypted, redis, tiered-redis"),
        (["get", "http://127.0.0.1:9/x", "--backend", "encrypted"], "needs --key-file"),
        (["stats", "--backend", "redis", "--redis-url", "redis://127.0.0.1"], "stats works on a cache directory"),
        (["ls", "--create-key"], "Unknown option '--create-key'"),
        (["stats", "--memory-capacity", "5"], "Unknown option '--memory-capacity'"),
        (["stats", "--disk-capacity", "1G"], "Unknown option '--disk-capacity'"),
        (["purge", "--all", "--redis-url", "redis://127.0.0.1"], "Unknown option '--redis-url'"),
        (["explain", "http://127.0.0.1:9/x", "--create-key"], "Unknown option '--create-key'"),
        (["get", "http://127.0.0.1:9/x", "--json"], "Unknown option '--json'"),
        (["get", "http://127.0.0.1:9/x", "--disk-capacity", "1Q"], "The value '1Q' is invalid for '--disk-capacity <size>'"),
        (["purge", "--all", "--backend", "tiered-redis", "--redis-url", "redis://127.0.0.1"], "purge works on a cache directory"),
        (["explain", "http://127.0.0.1:9/x", "--encrypt-https", "--backend", "redis"], "--encrypt-https is used with --backend disk"),
        (["batch", "--disk-capacity=-1"], "The value '-1' is invalid for '--disk-capacity <size>'"),
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
        let hit = try await run(["get", origin.url("/a"), "--trace", "--encrypt-https", "--cacert", certificate] + cache, in: directory)
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
