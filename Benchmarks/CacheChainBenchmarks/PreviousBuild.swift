import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The previous build's side of every paired row (`scripts/bench.sh --against COMMIT`, issue 42): this harness, built
/// against that commit's library, runs as a worker process in lockstep with this one. Both processes run the same
/// rows in the same order (each sets up its own fixtures and loopback origin); at each paired row the coordinator
/// (this process, `BENCH_AGAINST=path`) alternates its own subject round, its baseline round and one round of the
/// worker's subject, so the three see the same machine state, and prints *new / old* per pair with its spread.
///
/// The worker (`BENCH_WORKER=1`) sends its ordinary output to `/dev/null` and talks on stdin and its original stdout:
/// `row NAME` → `@@ready NAME` (after its warm-up), `round CALLS` → `@@figure VALUE SWITCHES CPU_US CALLS`, `done`.
/// While the coordinator measures, the worker waits in a blocking read and uses no CPU.
enum PreviousBuild {
    /// Whether this process is the worker of a coordinator.
    static let isWorker = ProcessInfo.processInfo.environment["BENCH_WORKER"] == "1"
    /// The worker, when this process coordinates a comparison against a previous build.
    static let worker: WorkerProcess? = {
        guard !isWorker, let path = ProcessInfo.processInfo.environment["BENCH_AGAINST"], !path.isEmpty else { return nil }
        do {
            return try WorkerProcess(path: path)
        } catch {
            print("cannot start the previous build's worker at \(path): \(error)")
            exit(70)
        }
    }()
    /// The coordinator's commands, read by the worker.
    static let commands = LineReader(fd: 0)
    /// In the worker: the descriptor replies go to (its original stdout); the first use sends the harness's own
    /// printing to `/dev/null` (``prepare()`` makes that first use happen before anything is printed).
    private static let replyFD: Int32 = {
        guard isWorker else { return 1 }
        let original = dup(1)
        let null = open("/dev/null", O_WRONLY)
        if null >= 0 {
            dup2(null, 1)
            close(null)
        }
        return original
    }()

    /// Call first thing: in the worker, keeps the original stdout for replies and silences the rest.
    static func prepare() {
        _ = replyFD
    }

    /// In the worker: waits for the coordinator to reach the row named `name`, warms up, then runs rounds of
    /// `round` (one call per round: it times or counts its own calls) until told the row is done.
    static func serve(row name: String, warmUp: () async throws -> Void, round: (Int) async throws -> (Double, ResourceUse)) async rethrows {
        guard let command = commands.nextLine() else { exit(0) }
        guard command == "row \(name)" else {
            reply("@@mismatch \(name)")
            FileHandle.standardError.write(Data("worker at row '\(name)', coordinator sent '\(command)'\n".utf8))
            exit(65)
        }
        try await warmUp()
        reply("@@ready \(name)")
        while let command = commands.nextLine(), command != "done" {
            guard command.hasPrefix("round "), let calls = Int(command.dropFirst(6)) else { continue }
            let (figure, use) = try await round(calls)
            reply("@@figure \(figure) \(use.contextSwitches) \(use.cpuMicroseconds) \(use.calls)")
        }
    }

    private static func reply(_ line: String) {
        let data = Array((line + "\n").utf8)
        data.withUnsafeBytes { _ = write(replyFD, $0.baseAddress, $0.count) }
    }
}

/// The previous build's process, driven over its standard input and output.
final class WorkerProcess: @unchecked Sendable {  // invariant: used by the coordinator's one benchmark task only
    private let process = Process()
    private let commands = Pipe()
    private let replies = Pipe()
    private let reader: LineReader

    init(path: String) throws {
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = Array(CommandLine.arguments.dropFirst())
        var environment = ProcessInfo.processInfo.environment
        environment["BENCH_WORKER"] = "1"
        environment["BENCH_AGAINST"] = nil
        environment["BENCH_RESULTS"] = "/dev/null"
        process.environment = environment
        process.standardInput = commands
        process.standardOutput = replies
        process.standardError = FileHandle.nullDevice
        reader = LineReader(fd: replies.fileHandleForReading.fileDescriptor)
        try process.run()
    }

    /// Tells the worker which row comes next and waits until it is there and warmed up.
    func start(row name: String) {
        send("row \(name)")
        guard let line = reader.nextLine(), line == "@@ready \(name)" else {
            print("the previous build's worker is not at row '\(name)': its rows differ (build it from the same Benchmarks/)")
            exit(65)
        }
    }

    /// One round of the worker's subject: its figure and resource use.
    func round(calls: Int) -> (figure: Double, use: ResourceUse) {
        send("round \(calls)")
        guard let line = reader.nextLine(), line.hasPrefix("@@figure ") else {
            print("the previous build's worker stopped answering")
            exit(70)
        }
        let parts = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard parts.count == 4 else { return (0, ResourceUse()) }
        return (parts[0], ResourceUse(contextSwitches: Int(parts[1]), cpuMicroseconds: parts[2], calls: Int(parts[3])))
    }

    /// Ends the row in the worker.
    func finish(row name: String) {
        send("done")
    }

    private func send(_ line: String) {
        commands.fileHandleForWriting.write(Data((line + "\n").utf8))
    }
}

/// Lines from a file descriptor, read with blocking `read(2)` (the harness's own protocol, not library code).
final class LineReader: @unchecked Sendable {  // invariant: read by one task at a time (the benchmark's)
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(fd: Int32) {
        self.fd = fd
    }

    /// The next line without its newline; `nil` at end of input.
    func nextLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            buffer += chunk[..<count]
        }
    }
}
