import CacheChainTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The test harness's `posix_spawn` launcher (used instead of Foundation's `Process`, whose `run()` can
/// over-read `/proc/self/fd` entries and crash the test process).
@Suite("ChildProcess: the tests' own process launcher")
struct ChildProcessTests {
    @Test("stdin and stdout pipes, the environment and the exit code reach the test")
    func pipesEnvironmentAndStatus() async throws {
        let child = try ChildProcess(
            "/bin/sh", ["-c", "echo \"$GREETING\"; cat; exit 3"],
            environment: ["GREETING": "hello", "PATH": "/usr/bin:/bin"],
            standardInput: .pipe, standardOutput: .pipe
        )
        try child.standardInput?.write(contentsOf: Data("from stdin\n".utf8))
        try child.standardInput?.close()
        #expect(child.readOutput() == "hello\nfrom stdin\n")
        #expect(await child.exitStatus() == 3)
        #expect(!child.isRunning)
    }

    @Test("a descriptor the test opened without close-on-exec is not inherited by the child")
    func onlyStandardStreamsAreInherited() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)").path
        let descriptor = open(path, O_WRONLY | O_CREAT, 0o600)
        try #require(descriptor > 2)
        defer { close(descriptor); unlink(path) }
        let child = try ChildProcess("/bin/sh", ["-c", "test -e /proc/self/fd/\(descriptor)"])
        #expect(await child.exitStatus() == 1, "fd \(descriptor) leaked into the child")
    }

    @Test("SIGTERM reaches the child whatever the test runner blocks, and the status names the signal")
    func terminationBySignal() async throws {
        let child = try ChildProcess("/bin/sleep", ["30"])
        #expect(child.isRunning)
        child.send(SIGTERM)
        #expect(await child.exitStatus() == SIGTERM)
    }

    @Test("a missing program is a typed error naming it")
    func missingProgram() throws {
        #expect(throws: ChildProcessError.self) { try ChildProcess("/nonexistent/cachechain", []) }
    }
}
