import Foundation
import Testing

/// `cachechain --version` is the package's version: the newest released section of CHANGELOG.md, the version the
/// README tells users to depend on.
@Suite("cachechain --version", .tags(.integration))
struct CLIVersionTests: BatchSubprocessSuite {
    /// The repository's root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The first `## X.Y.Z` heading of CHANGELOG.md (the "Unreleased" section has no number).
    static func newestReleasedVersion() throws -> String? {
        let changelog = try String(contentsOf: root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        return changelog.split(separator: "\n").lazy.compactMap { line -> String? in
            guard line.hasPrefix("## "), let first = line.dropFirst(3).split(separator: " ").first,
                first.split(separator: ".").count == 3, first.allSatisfy({ $0.isNumber || $0 == "." })
            else { return nil }
            return String(first)
        }.first
    }

    @Test("prints the newest released version of CHANGELOG.md, which the README installs")
    func versionMatchesChangelogAndReadme() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let released = try #require(try Self.newestReleasedVersion(), "CHANGELOG.md has no released version")
        let result = try await run(["--version"], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == released)
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("from: \"\(released)\""), "README.md should install from: \"\(released)\"")
    }
}
