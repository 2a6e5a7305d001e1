import Foundation
import Testing

extension Tag {
    /// Slow tests that start child processes.
    @Tag static var integration: Self
}

/// Runs `cachechain-storage-probe`, built next to the test bundle by `swift build --build-tests`.
///
/// The probe's output is read by a thread of its own and handed over as an `AsyncStream`, so a test that
/// waits for a child never holds one of the few threads of Swift's cooperative pool (on a 2-core machine
/// there are two: a test blocked in `read(2)` for the length of a crash loop stalled every other test).
struct Probe {
    static var executable: String {
        get throws {
            let bundle = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            let path = (bundle as NSString).deletingLastPathComponent + "/cachechain-storage-probe"
            try #require(FileManager.default.isExecutableFile(atPath: path), "build the probe first: swift build --build-tests")
            return path
        }
    }

    let process = Process()
    private var lines: AsyncStream<String>.AsyncIterator

    /// Starts the probe with arguments.
    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: try Self.executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        lines = stream.makeAsyncIterator()
        try process.run()
        let reading = output.fileHandleForReading
        let reader = Thread {
            var buffered: [UInt8] = []
            while true {
                let data = reading.availableData
                if data.isEmpty { break }
                buffered.append(contentsOf: data)
                while let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                    continuation.yield(String(decoding: buffered[..<newline], as: UTF8.self))
                    buffered.removeSubrange(...newline)
                }
            }
            if !buffered.isEmpty { continuation.yield(String(decoding: buffered, as: UTF8.self)) }
            continuation.finish()
        }
        reader.start()
    }

    /// The next output line; `nil` at end of output.
    mutating func nextLine() async -> String? {
        await lines.next()
    }

    /// Reads every remaining line and waits for the exit.
    mutating func finish() async -> (lines: [String], status: Int32) {
        var all: [String] = []
        while let line = await nextLine() { all.append(line) }
        let process = self.process
        let status = await Self.exitStatus(of: process)
        return (all, status)
    }

    /// Kills the probe with SIGKILL and waits for it to be reaped.
    func kill() async {
        Foundation.kill(process.processIdentifier, SIGKILL)
        _ = await Self.exitStatus(of: process)
    }

    /// Runs the probe to completion.
    static func run(_ arguments: [String]) async throws -> (lines: [String], status: Int32) {
        var probe = try Probe(arguments)
        return await probe.finish()
    }

    /// Waits for a process to exit by polling (a `terminationHandler` cannot be set after `run()`); never
    /// blocks a thread.
    private static func exitStatus(of process: Process) async -> Int32 {
        while process.isRunning { try? await Task.sleep(for: .milliseconds(5)) }
        return process.terminationStatus
    }
}
