import Foundation

/// What a finished `cachechain` run left.
struct CLIRun {
    let status: Int32
    let stdout: String
    let stderr: String
}

extension BatchSubprocessSuite {
    /// Runs `cachechain <arguments>` to completion, with stdin closed.
    func run(_ arguments: [String], in directory: URL) async throws -> CLIRun {
        let process = try BatchProcess(arguments, directory: directory)
        try process.closeInput()
        var lines: [String] = []
        while let line = await process.nextLine() { lines.append(line) }
        let status = await process.exitStatus()
        return CLIRun(status: status, stdout: lines.joined(separator: "\n"), stderr: process.stderr)
    }
}
