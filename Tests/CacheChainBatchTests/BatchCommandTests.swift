import CacheChainBatch
import CacheChainLoopback
import CacheChainTesting
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

    @Test("disk and tiered backends keep responses across processes", arguments: ["disk", "tiered"])
    func persistentBackends(backend: String) async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = directory.appendingPathComponent("cache").path
        let arguments = ["--backend", backend, "--cache-dir", cache]
        var url = ""
        try await withBatch(arguments) { batch, origin, _ in
            origin.route("/p", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "persisted"))
            url = origin.url("/p")
            let first = try await roundTrip(batch, 1, url)
            #expect(first["cache_status"] == .string("miss"))
        }
        // The origin of the first session is gone: only the cache directory can answer now.
        try await withBatch(arguments) { batch, _, _ in
            let again = try await roundTrip(batch, 1, url, #","cache_mode":"only-if-cached""#)
            #expect(again["status"] == .integer(200))
            #expect(again["body"] == .string("persisted"))
            #expect(again["cache_status"] == .string("hit"))
        }
    }

    @Test("--backend encrypted: HTTPS sealed under <cache-dir>/encrypted with a new 0600 key file, readable by the next process only")
    func encryptedBackend() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = try LoopbackCertificate.writeCertificate(to: directory.path)
        let cache = directory.appendingPathComponent("cache").path
        let keyFile = directory.appendingPathComponent("cache.key").path
        let marker = "BATCH-SECRET-BODY-4417"
        let arguments = ["--backend", "encrypted", "--cache-dir", cache, "--key-file", keyFile, "--cacert", certificate]
        var url = ""
        try await withBatch(arguments + ["--create-key"], tls: true) { batch, origin, _ in
            origin.route("/secret", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: marker))
            url = origin.url("/secret")
            let first = try await roundTrip(batch, 1, url)
            #expect(first["cache_status"] == .string("miss"))
            let second = try await roundTrip(batch, 2, url)
            #expect(second["cache_status"] == .string("hit"))
        }
        let mode = try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        var scanned = 0
        let enumerator = try #require(FileManager.default.enumerator(atPath: cache))
        for case let name as String in enumerator {
            guard let bytes = FileManager.default.contents(atPath: cache + "/" + name) else { continue }
            scanned += bytes.count
            let found = bytes.range(of: Data(marker.utf8)) != nil || bytes.range(of: Data("/secret".utf8)) != nil
            #expect(!found, "plaintext in \(name)")
        }
        #expect(scanned > marker.utf8.count)
        try await withBatch(arguments, tls: true) { batch, _, _ in
            let again = try await roundTrip(batch, 1, url, #","cache_mode":"only-if-cached""#)
            #expect(again["body"] == .string(marker))
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
        "an unusable cache directory or key file exits 1, bad options 64, each with a message",
        arguments: [
            (["--backend", "disk", "--cache-dir", "/proc/no-such-dir"], Int32(1), "cannot open the cache"),
            (["--backend", "encrypted", "--cache-dir", "DIR/cache", "--key-file", "DIR/open.key"], 1, "chmod 600"),
            (["--backend", "encrypted", "--cache-dir", "DIR/cache"], 64, "needs --key-file"),
            (["--backend", "memory", "--cache-dir", "DIR/cache"], 64, "--cache-dir is only used by the disk, tiered and encrypted backends"),
            (["--backend", "floppy"], 64, "floppy"),
            (["--max-in-flight=-1"], 64, "--max-in-flight must be 0"),
        ]
    )
    func failedStarts(arguments: [String], status: Int32, message: String) async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A key file readable by others, for the encrypted backend's refusal.
        let openKey = directory.appendingPathComponent("open.key").path
        _ = FileManager.default.createFile(atPath: openKey, contents: Data("k1 \(String(repeating: "A", count: 43))=\n".utf8),
                                       attributes: [.posixPermissions: 0o644])
        let batch = try BatchProcess(
            ["batch"] + arguments.map { $0.replacingOccurrences(of: "DIR", with: directory.path) },
            directory: directory
        )
        try batch.closeInput()
        #expect(await batch.nextLine() == nil, "nothing on stdout")
        #expect(await batch.exitStatus() == status)
        #expect(batch.stderr.contains(message), "\(batch.stderr)")
    }

    @Test("--max-in-flight 3: of 12 requests sent at once, 3 reach the origin until one is answered; all 12 are answered")
    func maximumInFlight() async throws {
        let gate = LoopbackGate()
        try await withBatch(["--max-in-flight", "3"], checkHello: { hello in
            guard case .string(let config)? = hello["config"] else {
                Issue.record("no config in \(hello)")
                return
            }
            #expect(config.hasSuffix("; at most 3 requests in flight"), "\(config)")
        }) { batch, origin, _ in
            origin.route("/held", handler: { request in
                var route = LoopbackRoute(body: "answered \(request.path)")
                route.gate = gate
                return route
            })
            for id in 1...12 { try batch.send(request(id, origin.url("/held?n=\(id)"))) }
            try batch.end()
            // Without the limit all twelve would be held at the origin at once.
            try await waitUntil("three requests held at the origin") { gate.waitingCount == 3 }
            #expect(origin.receivedRequests.count == 3)
            gate.open()
            var answered: Set<Int64> = []
            for _ in 1...12 {
                let reply = try await batch.nextMessage()
                if case .integer(let id)? = reply["id"], reply["body"] == .string("answered /held?n=\(id)") { answered.insert(id) }
            }
            #expect(answered == Set(1...12))
            // The command's transport runs a libcurl thread per core, each with its own connection pool.
            let threads = ProcessInfo.processInfo.activeProcessorCount
            #expect(origin.connectionCount <= 3 * threads, "connections are reused, at most one per request in flight and thread")
        }
    }
}
