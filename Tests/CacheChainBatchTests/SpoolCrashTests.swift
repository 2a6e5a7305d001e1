import CacheChainLoopback
import CacheChainTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 25.4: a process killed while it spools a download or decrypts a large encrypted hit leaves no
/// file in `$TMPDIR` (spool files have no name: `O_TMPFILE`, or unlinked at once).
@Suite("No plaintext left behind after SIGKILL", .tags(.integration))
struct SpoolCrashTests: BatchSubprocessSuite {
    /// How many descriptors `pid` holds open on files in `directory` (an unnamed file reads `<directory>/#… (deleted)`).
    static func openFiles(of pid: Int32, in directory: String) -> Int {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return descriptors.filter { name in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(name)"))?.hasPrefix(directory + "/") == true
        }.count
    }

    @Test("20 SIGKILLs while 64 MiB HTTPS downloads spool and 6 MiB encrypted hits are decrypted leave no cachechain-* file in TMPDIR")
    func noLeftoversAfterKills() async throws {
        let scratch = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let temporary = scratch.appendingPathComponent("tmp").path
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let certificate = try LoopbackCertificate.writeCertificate(to: scratch.path)
        let origin = try await LoopbackOrigin.start(tls: true)
        let stall = LoopbackGate()  // opened only at the end: every download stops after 6 MiB, past the 4 MiB spool limit
        var big = LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: .generated(count: 64 << 20))
        big.bodyPauseOffset = 6 << 20
        big.bodyPauseGate = stall
        origin.route("/big", big)
        origin.route("/six", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: .generated(count: 6 << 20)))
        let common = ["--cacert", certificate, "--cache-dir", scratch.appendingPathComponent("cache").path]
        let encrypted = ["--encrypt-https", "--key-file", scratch.appendingPathComponent("cache.key").path]
        let environment = ["TMPDIR": temporary + "/"]

        for round in 0..<10 {
            let child = try BatchProcess(["get", origin.url("/big"), "--progress"] + common, directory: scratch, environment: environment)
            try child.closeInput()
            try await waitUntil("round \(round): 5 MiB spooled") { child.stderr.contains("received 5.0 MiB") }
            #expect(Self.openFiles(of: child.processIdentifier, in: temporary) == 1, "round \(round): the download spools in TMPDIR")
            child.terminate()
            _ = await child.exitStatus()
        }

        let store = try BatchProcess(["get", origin.url("/six"), "--create-key"] + common + encrypted, directory: scratch, environment: environment)
        try store.closeInput()
        while await store.nextLine() != nil {}
        #expect(await store.exitStatus() == 0, "\(store.stderr)")
        for round in 0..<10 {
            // A hit decrypts the 6 MiB body into the spool, then writes it to stdout: a pipe nobody reads, so the
            // child stops in that write with the decrypted body open — and is killed there.
            let unread = Pipe()
            let child = try BatchProcess(
                ["get", origin.url("/six")] + common + encrypted, directory: scratch, environment: environment,
                standardOutput: unread.fileHandleForWriting
            )
            try unread.fileHandleForWriting.close()
            try child.closeInput()
            try await waitUntil("round \(round): the decrypted body is spooled") {
                Self.openFiles(of: child.processIdentifier, in: temporary) > 0
            }
            child.terminate()
            _ = await child.exitStatus()
            try unread.fileHandleForReading.close()
        }
        #expect(origin.requestCount(for: "/six") == 1, "the later runs were encrypted hits")

        let left = try FileManager.default.contentsOfDirectory(atPath: temporary).filter { $0.hasPrefix("cachechain") }
        #expect(left.isEmpty, "left in TMPDIR: \(left)")
        stall.open()
        try await origin.shutdown()
    }
}
