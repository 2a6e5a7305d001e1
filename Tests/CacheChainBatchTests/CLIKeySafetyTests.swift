import CacheChainLoopback
import Foundation
import Testing

/// The CLI and encrypted caches: never plaintext next to an encrypted tier, never a key created by accident,
/// never a wrong key as silent misses; read-only commands create nothing.
@Suite("cachechain: keys, encrypted tiers and read-only commands", .tags(.integration))
struct CLIKeySafetyTests: BatchSubprocessSuite {
    /// Writes a key file by hand (one `ID KEY` line per key, current first), mode 0600.
    func writeKeyFile(_ path: String, ids: [String]) {
        let lines = ids.map { id in
            "\(id) \(Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString())\n"
        }
        _ = FileManager.default.createFile(atPath: path, contents: Data(lines.joined().utf8), attributes: [.posixPermissions: 0o600])
    }

    /// Every file under `directory` (recursively) whose bytes contain `marker`.
    func filesContaining(_ marker: String, under directory: String) -> [String] {
        let names = (FileManager.default.enumerator(atPath: directory)?.allObjects as? [String]) ?? []
        return names.filter { FileManager.default.contents(atPath: directory + "/" + $0)?.range(of: Data(marker.utf8)) != nil }
    }

    @Test("get without --encrypt-https on a cache with an encrypted tier is refused before anything is fetched or stored")
    func noPlaintextNextToEncryptedTier() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start(tls: true)
        let certificate = try LoopbackCertificate.writeCertificate(to: directory.path)
        origin.route("/sealed", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "SEALED-BODY-1"))
        origin.route("/clear", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "WOULD-BE-CLEAR-2"))
        let cache = directory.appendingPathComponent("cache").path
        let keyFile = directory.appendingPathComponent("cache.key").path
        writeKeyFile(keyFile, ids: ["key-a"])
        let sealed = try await run(
            ["get", origin.url("/sealed"), "--cacert", certificate, "--cache-dir", cache, "--encrypt-https", "--key-file", keyFile],
            in: directory
        )
        #expect(sealed.status == 0, "\(sealed.stderr)")

        let refused = try await run(["get", origin.url("/clear"), "--cacert", certificate, "--cache-dir", cache], in: directory)
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("keeps HTTPS responses encrypted in \(cache)/encrypted"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--encrypt-https --key-file"))
        #expect(origin.requestCount(for: "/clear") == 0)
        #expect(filesContaining("WOULD-BE-CLEAR-2", under: cache).isEmpty)

        let batch = try await run(["batch", "--backend", "disk", "--cache-dir", cache], in: directory)
        #expect(batch.status == 64)
        #expect(batch.stderr.contains("--backend encrypted --key-file"), "\(batch.stderr)")
        try await origin.shutdown()
    }

    @Test("a missing --key-file is an error that creates nothing; --create-key creates it (0600) on purpose")
    func missingKeyFile() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start()
        origin.route("/a", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "a"))
        let cache = directory.appendingPathComponent("cache").path
        let keyFile = directory.appendingPathComponent("typo.key").path
        let options = ["--cache-dir", cache, "--encrypt-https", "--key-file", keyFile]

        for command in [["get", origin.url("/a")], ["ls"], ["stats"], ["explain", origin.url("/a")], ["purge", "--all"]] {
            let refused = try await run(command + options, in: directory)
            #expect(refused.status == 64, "\(command)")
            #expect(refused.stderr.contains("--key-file \(keyFile) does not exist"), "\(command): \(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: keyFile), "\(command) created the key file")
            #expect(!FileManager.default.fileExists(atPath: cache), "\(command) created the cache")
        }
        let batch = try await run(["batch", "--backend", "encrypted", "--cache-dir", cache, "--key-file", keyFile], in: directory)
        #expect(batch.status == 64)
        #expect(batch.stderr.contains("--create-key"), "\(batch.stderr)")
        #expect(!FileManager.default.fileExists(atPath: keyFile))

        let created = try await run(["get", origin.url("/a"), "--create-key"] + options, in: directory)
        #expect(created.status == 0, "\(created.stderr)")
        let mode = try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let lsCreate = try await run(["ls", "--create-key"] + options, in: directory)
        #expect(lsCreate.status == 64, "--create-key is not an option of ls")
        try await origin.shutdown()
    }

    @Test("a key file without the tier's key is an error naming the expected key ID; a rotated key file is accepted")
    func wrongKey() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start(tls: true)
        let certificate = try LoopbackCertificate.writeCertificate(to: directory.path)
        origin.route("/s", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "secret"))
        let cache = directory.appendingPathComponent("cache").path
        let right = directory.appendingPathComponent("right.key").path
        let wrong = directory.appendingPathComponent("wrong.key").path
        writeKeyFile(right, ids: ["key-right"])
        writeKeyFile(wrong, ids: ["key-wrong"])
        let get = ["get", origin.url("/s"), "--trace", "--cacert", certificate, "--cache-dir", cache, "--encrypt-https", "--key-file"]
        #expect(try await run(get + [right], in: directory).status == 0)

        let refused = try await run(get + [wrong], in: directory)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("sealed with key ID key-right"), "\(refused.stderr)")
        #expect(refused.stderr.contains("holds key ID key-wrong"))
        #expect(origin.requestCount(for: "/s") == 1, "refused before any request")
        let listed = try await run(["ls", "--cache-dir", cache, "--encrypt-https", "--key-file", wrong], in: directory)
        #expect(listed.status == 1)
        #expect(listed.stderr.contains("key-right"))
        let batch = try await run(["batch", "--backend", "encrypted", "--cache-dir", cache, "--key-file", wrong], in: directory)
        #expect(batch.status == 1)
        #expect(batch.stderr.contains("sealed with key ID key-right"), "\(batch.stderr)")
        let recreate = try await run(get + [directory.appendingPathComponent("new.key").path, "--create-key"], in: directory)
        #expect(recreate.status == 64)
        #expect(recreate.stderr.contains("sealed with key ID key-right, which a new key cannot open"), "\(recreate.stderr)")

        // Rotated: a new current key, the old one kept. Accepted (a HIT), and the record follows the rotation.
        let rotated = directory.appendingPathComponent("rotated.key").path
        let oldLine = try #require(try String(contentsOfFile: right, encoding: .utf8).split(separator: "\n").first)
        writeKeyFile(rotated, ids: ["key-next"])
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: rotated))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((oldLine + "\n").utf8))
        try handle.close()
        let hit = try await run(get + [rotated], in: directory)
        #expect(hit.status == 0, "\(hit.stderr)")
        #expect(hit.stderr.contains("HIT 200"))
        #expect(try String(contentsOfFile: cache + "/encrypted/cachechain-key-id", encoding: .utf8) == "key-next\n")
        try await origin.shutdown()
    }

    @Test("stats, ls and explain on a missing directory exit 1 and leave nothing behind", arguments: [["stats"], ["ls"], ["explain", "https://example.com/"]])
    func readOnlyCommandsCreateNothing(_ command: [String]) async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("no-cache-here").path
        let result = try await run(command + ["--cache-dir", missing], in: directory)
        #expect(result.status == 1)
        #expect(result.stderr.contains("there is no cache in \(missing)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: missing))

        let empty = directory.appendingPathComponent("empty").path
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        #expect(try await run(command + ["--cache-dir", empty], in: directory).status == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty).isEmpty, "a directory that is not a cache stays untouched")
    }
}
