import CacheChainBatch
import CacheChainLoopback
import Foundation
import Testing

/// `cachechain batch` as a process: TLS options, end of input, exit codes.
@Suite("cachechain batch as a subprocess: options and lifecycle", .tags(.integration))
struct BatchCommandTests: BatchSubprocessSuite {
    @Test("HTTPS: --cacert trusts the loopback certificate; without it the request fails")
    func httpsWithCACert() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = try LoopbackCertificate.writeCertificate(to: directory.path)
        try await withBatch(["--cacert", certificate], tls: true) { batch, origin, _ in
            origin.route("/s", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "secure"))
            let first = try await roundTrip(batch, 1, origin.url("/s"))
            #expect(first["status"] == .integer(200))
            #expect(first["body"] == .string("secure"))
            let second = try await roundTrip(batch, 2, origin.url("/s"))
            #expect(second["cache_status"] == .string("hit"))
        }
        try await withBatch(tls: true) { batch, origin, _ in
            origin.route("/s", LoopbackRoute(body: "secure"))
            let untrusted = try await roundTrip(batch, 1, origin.url("/s"))
            #expect(untrusted["error"] != nil)
        }
    }

    @Test("HTTPS: --capath trusts a directory of hashed certificates; the hello names the trust")
    func httpsWithCAPath() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let hashed = directory.appendingPathComponent("hashed")
        try FileManager.default.createDirectory(at: hashed, withIntermediateDirectories: true)
        // 8b3ad7f2 is the OpenSSL subject hash of the loopback certificate (`openssl x509 -hash -noout`).
        try Data(LoopbackCertificate.certificatePEM.utf8).write(to: hashed.appendingPathComponent("8b3ad7f2.0"))
        try await withBatch(["--capath", hashed.path], tls: true) { batch, origin, _ in
            origin.route("/p", LoopbackRoute(body: "via capath"))
            let reply = try await roundTrip(batch, 1, origin.url("/p"))
            #expect(reply["body"] == .string("via capath"))
        }
    }

    @Test("end of input instead of an end message also ends the session with exit 0")
    func endOfInput() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let batch = try BatchProcess(["batch"], directory: directory)
        try batch.send(#"{"type":"hello","protocol":1}"#)
        try batch.closeInput()
        let hello = try await batch.nextMessage()
        #expect(hello["type"] == .string("hello"))
        #expect(await batch.nextLine() == nil)
        #expect(await batch.exitStatus() == 0)
    }

    @Test(
        "backends this build lacks exit 69 with a clear message; bad options exit 64",
        arguments: [
            (
                ["--backend", "disk", "--cache-dir", "DIR"], Int32(69),
                "the disk backend is not available in this build"
            ),
            (["--backend", "tiered", "--cache-dir", "DIR"], 69, "the tiered backend is not available in this build"),
            (
                ["--backend", "encrypted", "--cache-dir", "DIR", "--key-file", "DIR/key"], 69,
                "the encrypted backend is not available"
            ),
            (["--backend", "disk"], 64, "needs --cache-dir"),
            (["--backend", "floppy"], 64, "floppy"),
        ]
    )
    func unavailableBackends(arguments: [String], status: Int32, message: String) async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let batch = try BatchProcess(
            ["batch"] + arguments.map { $0.replacingOccurrences(of: "DIR", with: directory.path) },
            directory: directory
        )
        try batch.closeInput()
        #expect(await batch.nextLine() == nil, "nothing on stdout")
        #expect(await batch.exitStatus() == status)
        #expect(batch.stderr.contains(message), "\(batch.stderr)")
    }
}
