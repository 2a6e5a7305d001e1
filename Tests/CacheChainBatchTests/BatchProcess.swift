import CacheChainBatch
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A `cachechain batch` child process driven through its stdin and stdout, as any program in any
/// language would drive it.
///
/// The binary is the one `swift build --build-tests` puts next to the test bundle
/// (`.build/<triple>/debug/cachechain`); `CACHECHAIN_BINARY` overrides the path. A watchdog terminates a
/// child still running after ``watchdogSeconds`` so that a hung child fails the test instead of hanging it.
final class BatchProcess {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static let watchdogSeconds = 120

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var lines: AsyncStream<[UInt8]>.AsyncIterator
    private var exitStatuses: AsyncStream<Int32>.AsyncIterator
    private let hasExited: Arc<Mutex<Bool>>
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
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: try Self.binaryPath())
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardInput = input
        if let standardOutput { process.standardOutput = standardOutput } else { process.standardOutput = output }
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        let (statuses, statusContinuation) = AsyncStream.makeStream(of: Int32.self)
        let exited = Arc(Mutex(false))
        hasExited = exited
        process.terminationHandler = { process in
            exited.value.withLock { $0 = true }
            statusContinuation.yield(process.terminationStatus)
            statusContinuation.finish()
        }
        exitStatuses = statuses.makeAsyncIterator()
        lines = FileDescriptorLines.lines(of: output.fileHandleForReading.fileDescriptor).makeAsyncIterator()
        signal(SIGPIPE, SIG_IGN)  // a child that exits early must fail a write with EPIPE, not kill the test runner
        try process.run()
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(Self.watchdogSeconds)) {
            // SIGKILL: a child started by Foundation's Process inherits the runner's blocked signals, so
            // SIGTERM may never arrive.
            if !exited.value.withLock({ $0 }) { kill(pid, SIGKILL) }
        }
    }

    /// Whether ``end()`` was called.
    private(set) var hasSentEnd = false

    /// Writes one line (and its line break) to the child's stdin.
    func send(_ line: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
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
        try input.fileHandleForWriting.close()
    }

    /// Waits for the child to exit and returns its status.
    func exitStatus() async -> Int32 {
        await exitStatuses.next() ?? -1
    }

    /// The child's process id.
    var processIdentifier: Int32 { process.processIdentifier }

    /// Stops a child still running (after a failed test).
    func terminate() {
        if !hasExited.value.withLock({ $0 }) { kill(process.processIdentifier, SIGKILL) }
    }

    /// What the child wrote on stderr so far.
    var stderr: String {
        (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
    }
}

/// A reference to a non-copyable value, to share a `Mutex` between closures.
final class Arc<Value: ~Copyable & Sendable>: Sendable {
    let value: Value
    init(_ value: consuming Value) { self.value = value }
}
