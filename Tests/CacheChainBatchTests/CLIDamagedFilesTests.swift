import CacheChainLoopback
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 46.9 through the CLI: a damaged `cachechain-format` or `encrypted/cachechain-key-id` is named, with how to
/// recover, in printable text (a flipped bit may leave a control byte a terminal would act on); a format file that
/// is a directory says so; a key file owned by another user is refused, even for root.
@Suite("cachechain: damaged cache files and foreign key files", .tags(.integration))
struct CLIDamagedFilesTests: BatchSubprocessSuite {
    /// A cache with one stored response, made by `get`.
    private func makeCache(in directory: URL, origin: LoopbackOrigin) async throws -> String {
        origin.route("/a", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "A"))
        let cache = directory.appendingPathComponent("cache").path
        let stored = try await run(["get", origin.url("/a"), "--cache-dir", cache], in: directory)
        #expect(stored.status == 0, "\(stored.stderr)")
        return cache
    }

    @Test("a flipped bit in cachechain-format (5\\n → 5\\x0E): get and stats name the damaged file and the recovery, escaped")
    func damagedFormatFile() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start()
        let cache = try await makeCache(in: directory, origin: origin)
        let format = cache + "/cachechain-format"
        try Data([0x35, 0x0E]).write(to: URL(fileURLWithPath: format))
        for command in [["get", origin.url("/a")], ["stats"]] {
            let result = try await run(command + ["--cache-dir", cache], in: directory)
            #expect(result.status == 1, "\(command[0]): \(result.stderr)")
            #expect(result.stderr.contains("\(format) is damaged: it holds '5\\x0E'"), "\(command[0]): \(result.stderr)")
            #expect(result.stderr.contains("echo 5 > \(format)"), "\(result.stderr)")
            #expect(!result.stderr.utf8.contains(0x0E), "no raw control byte on stderr")
        }
        try await origin.shutdown()
    }

    @Test("a cachechain-format that is a directory: get and stats say so")
    func formatFileIsADirectory() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start()
        let cache = try await makeCache(in: directory, origin: origin)
        let format = cache + "/cachechain-format"
        try FileManager.default.removeItem(atPath: format)
        try FileManager.default.createDirectory(atPath: format, withIntermediateDirectories: false)
        for command in [["get", origin.url("/a")], ["stats"]] {
            let result = try await run(command + ["--cache-dir", cache], in: directory)
            #expect(result.status == 1, "\(command[0]): \(result.stderr)")
            #expect(result.stderr.contains("\(format) is a directory, where the cache's format file should be"), "\(command[0]): \(result.stderr)")
        }
        try await origin.shutdown()
    }

    /// A key file (mode 0600) with one key.
    private func writeKeyFile(_ path: String, id: String) {
        let line = "\(id) \(Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString())\n"
        _ = FileManager.default.createFile(atPath: path, contents: Data(line.utf8), attributes: [.posixPermissions: 0o600])
    }

    @Test("a flipped bit in encrypted/cachechain-key-id: the error names the file and the recovery, escaped")
    func damagedKeyIDRecord() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start(tls: true)
        let certificate = try LoopbackCertificate.writeCertificate(to: directory.path)
        origin.route("/s", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "sealed"))
        let cache = directory.appendingPathComponent("cache").path
        let keyFile = directory.appendingPathComponent("cache.key").path
        writeKeyFile(keyFile, id: "key-a")
        let get = ["get", origin.url("/s"), "--trace", "--cacert", certificate, "--cache-dir", cache, "--encrypt-https", "--key-file", keyFile]
        #expect(try await run(get, in: directory).status == 0)
        let record = cache + "/encrypted/cachechain-key-id"
        try Data([0x6B, 0x65, 0x79, 0x2D, 0x01, 0x0A]).write(to: URL(fileURLWithPath: record))  // "key-a\n" with a → 0x01
        let result = try await run(get, in: directory)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("\(record) is damaged: it holds 'key-\\x01'"), "\(result.stderr)")
        #expect(result.stderr.contains("delete \(record)"), "\(result.stderr)")
        #expect(!result.stderr.utf8.contains(0x01), "no raw control byte on stderr")
        try FileManager.default.removeItem(atPath: record)
        let recovered = try await run(get, in: directory)
        #expect(recovered.status == 0, "the documented recovery works: \(recovered.stderr)")
        #expect(recovered.stderr.contains("HIT 200"), "\(recovered.stderr)")
        try await origin.shutdown()
    }

    @Test("a key file owned by another user is refused, even for root")
    func foreignKeyFile() async throws {
        guard geteuid() == 0 else {
            print("skipped: giving a file to another user needs root (euid \(geteuid()))")
            return
        }
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("theirs.key").path
        writeKeyFile(keyFile, id: "key-theirs")
        #expect(chown(keyFile, 65534, 65534) == 0)
        let cache = directory.appendingPathComponent("cache").path
        let result = try await run(["get", "https://example.invalid/", "--cache-dir", cache, "--encrypt-https", "--key-file", keyFile], in: directory)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("\(keyFile) is owned by user 65534, not by the user running the cache (0)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cache + "/encrypted"), "nothing sealed with a foreign key")
    }
}
