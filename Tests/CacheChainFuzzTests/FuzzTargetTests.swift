import CacheChainTesting
import Foundation
import Testing

/// The fuzz targets of `cachechain-fuzz` in the test suite, without libFuzzer (`scripts/fuzz.sh` runs them
/// under libFuzzer): every seed reaches past the parsers' first checks, every input that once crashed
/// (`Fuzz/Regressions/<target>`) runs cleanly, and a few thousand random mutations of the seeds do too.
@Suite("Fuzz targets: seeds, past findings and a mutation smoke run")
struct FuzzTargetTests {
    static let targets = ["cache-control", "http-date", "response-head", "batch-line", "disk-entry", "index-row", "envelope"]

    /// The package's root, from this file's path.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs `cachechain-fuzz` (built next to the test bundle) to completion; a crash is a non-zero status.
    static func fuzzer(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("cachechain-fuzz-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: output) }
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        let process = try ChildProcess(
            directory.appendingPathComponent("cachechain-fuzz").path, arguments,
            standardOutput: .descriptor(handle.fileDescriptor), standardError: .descriptor(handle.fileDescriptor)
        )
        let status = await process.exitStatus()
        try handle.close()
        return (status, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
    }

    @Test("the executable names every target")
    func list() async throws {
        let listed = try await Self.fuzzer(["list"])
        #expect(listed.status == 0)
        #expect(listed.output.split(separator: "\n").map(String.init) == Self.targets)
    }

    @Test("every seed is accepted, and 3,000 mutations of them run without a crash", arguments: targets)
    func smoke(_ target: String) async throws {
        let run = try await Self.fuzzer(["smoke", target, "3000"])
        #expect(run.status == 0, "\(run.output)")
        let seeds = try #require(run.output.firstMatch(of: /(\d+) of (\d+) seed/), "\(run.output)")
        #expect(seeds.1 == seeds.2, "a seed was refused, so fuzzing would start shallow: \(run.output)")
    }

    @Test("every input that once made a target fail runs cleanly", arguments: targets)
    func regressions(_ target: String) async throws {
        let folder = Self.packageRoot.appendingPathComponent("Fuzz/Regressions/\(target)").path
        guard FileManager.default.fileExists(atPath: folder) else { return }
        let run = try await Self.fuzzer(["replay", target, folder])
        #expect(run.status == 0, "\(run.output)")
    }
}
