import Foundation
import Testing

extension Tag {
    /// Slow tests that start child processes.
    @Tag static var integration: Self
}

/// Runs `cachechain-storage-probe`, built next to the test bundle by `swift build --build-tests`.
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
    private let output = Pipe()
    private var buffered: [UInt8] = []

    /// Starts the probe with arguments.
    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: try Self.executable)
        process.arguments = arguments
        process.standardOutput = output
        try process.run()
    }

    /// Blocks until the next output line; `nil` at end of output.
    mutating func nextLine() -> String? {
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return line
            }
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { return nil }
            buffered.append(contentsOf: data)
        }
    }

    /// Reads every remaining line and waits for the exit.
    mutating func finish() -> (lines: [String], status: Int32) {
        var lines: [String] = []
        while let line = nextLine() { lines.append(line) }
        process.waitUntilExit()
        return (lines, process.terminationStatus)
    }

    /// Kills the probe with SIGKILL and reaps it.
    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Runs the probe to completion.
    static func run(_ arguments: [String]) throws -> (lines: [String], status: Int32) {
        var probe = try Probe(arguments)
        return probe.finish()
    }
}
