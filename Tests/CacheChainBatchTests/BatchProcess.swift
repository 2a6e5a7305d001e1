import CacheChainBatch
import CacheChainTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A `cachechain batch` child process driven through its stdin and stdout, as any program in any
/// language would drive it.
///
/// The child is started by `ChildProcess` (posix_spawn, not Foundation's `Process`). The binary is the one
/// `swift build --build-tests` puts next to the test bundle (`.build/<triple>/debug/cachechain`);
/// `CACHECHAIN_BINARY` overrides the path. A watchdog terminates a
/// child still running after ``watchdogSeconds`` so that a hung child fails the test instead of hanging it.
final class BatchProcess {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static let watchdogSeconds = 120

    private let process: ChildProcess
    private var lines: AsyncStream<[UInt8]>.AsyncIterator
    /// Where the child's stderr goes.
    let stderrPath: String

    /// The `cachechain` executable built next to this test bundle.
    static func binaryPath() throws -> String {
        if let override = ProcessInfo.processInfo.environment["CACHECHAIN_BINARY"] { return override }
        let bundle = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let candidate = URL(fileURLWithPath: bundle).deletingLastPathComponent().appendingPathComponent("cachechain")
            .path
        guard FileManager.default.isExecutableFile(atPath: candidate) else {
            throw Failure(
                description: "no cachechain executable next to the test bundle (\(candidate)): build it with "
                    + "`swift build --build-tests` (scripts/test.sh does) before `swift test --skip-build`, "
                    + "or set CACHECHAIN_BINARY"
            )
        }
        return candidate
    }

    /// Starts `cachechain <arguments>`.
    /// - Parameters:
    ///   - arguments: E.g. `["batch"]`.
    ///   - directory: A directory of the test's own for the stderr log.
    ///   - environment: Variables to set in the child's environment (e.g. its own `TMPDIR`), on top of the test's.
    ///   - standardOutput: Where the child's stdout goes instead of the pipe ``nextLine()`` reads (e.g. a pipe the
    ///     test never reads, to hold the child in a write).
    init(_ arguments: [String], directory: URL, environment: [String: String] = [:], standardOutput: FileHandle? = nil) throws {
        stderrPath = directory.appendingPathComponent("stderr.log").path
        signal(SIGPIPE, SIG_IGN)  // a child that exits early must fail a write with EPIPE, not kill the test runner
        let process = try ChildProcess(
            try Self.binaryPath(), arguments,
            environment: environment.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(environment) { $1 },
            standardInput: .pipe,
            standardOutput: standardOutput.map { .descriptor($0.fileDescriptor) } ?? .pipe,
            standardError: .path(stderrPath)
        )
        self.process = process
        // With `standardOutput` given, the child's stdout is the caller's and this stream ends at once.
        lines = FileDescriptorLines.lines(of: process.standardOutput?.fileDescriptor ?? -1).makeAsyncIterator()
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(Self.watchdogSeconds)) {
            process.send(SIGKILL)
        }
    }

    /// Whether ``end()`` was called.
    private(set) var hasSentEnd = false

    /// Writes one line (and its line break) to the child's stdin.
    func send(_ line: String) throws {
        guard let input = process.standardInput else { throw Failure(description: "the child's stdin is closed") }
        try input.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Sends `{"type":"end"}`; after it the child may exit at any moment, so nothing more is sent.
    func end() throws {
        try send(#"{"type":"end"}"#)
        hasSentEnd = true
    }

    /// The next line the child wrote on stdout, or `nil` at end of output.
    func nextLine() async -> String? {
        guard let bytes = await lines.next() else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The next stdout line, parsed as JSON.
    func nextMessage() async throws -> JSONValue {
        guard let line = await nextLine() else {
            throw Failure(description: "cachechain closed stdout early; stderr: \(stderr)")
        }
        return try JSONValue.parse(Array(line.utf8))
    }

    /// Closes the child's stdin (end of input).
    func closeInput() throws {
        try process.standardInput?.close()
    }

    /// Waits for the child to exit and returns its status.
    func exitStatus() async -> Int32 {
        await process.exitStatus()
    }

    /// The child's process id.
    var processIdentifier: Int32 { process.processIdentifier }

    /// Stops a child still running (after a failed test).
    func terminate() {
        process.send(SIGKILL)
    }

    /// What the child wrote on stderr so far.
    var stderr: String {
        (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
    }
}
