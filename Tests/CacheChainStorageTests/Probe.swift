import CacheChainTesting
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

    let process: ChildProcess
    private var lines: AsyncStream<String>.AsyncIterator

    /// Starts the probe with arguments.
    init(_ arguments: [String]) throws {
        process = try ChildProcess(try Self.executable, arguments, standardOutput: .pipe)
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        lines = stream.makeAsyncIterator()
        guard let reading = process.standardOutput else {
            continuation.finish()  // unreachable: stdout is a pipe
            return
        }
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
        let status = await process.exitStatus()
        return (all, status)
    }

    /// Kills the probe with SIGKILL and waits for it to be reaped.
    func kill() async {
        process.send(SIGKILL)
        _ = await process.exitStatus()
    }

    /// Runs the probe to completion.
    static func run(_ arguments: [String]) async throws -> (lines: [String], status: Int32) {
        var probe = try Probe(arguments)
        return await probe.finish()
    }
}
