import CacheChainBatch
import CacheChain
import CacheChainLoopback
import Foundation
import Testing

/// Issue 46.7 through the CLI: `purge` on a mistyped `--cache-dir` creates nothing, and the batch hello names the
/// chain the client really runs.
@Suite("cachechain: purge on a missing directory, the hello's chain", .tags(.integration))
struct CLISmallTruthsTests: BatchSubprocessSuite {
    @Test("purge --cache-dir <typo> exits 1 naming the missing directory, and creates nothing", arguments: [["--all"], ["--expired"]])
    func purgeOnMissingDirectoryCreatesNothing(_ selector: [String]) async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let typo = directory.appendingPathComponent("cahce").path
        let result = try await run(["purge"] + selector + ["--cache-dir", typo], in: directory)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("\(typo): the directory does not exist"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: typo), "no cache was created at the typo")

        let empty = directory.appendingPathComponent("empty").path
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        let inEmpty = try await run(["purge"] + selector + ["--cache-dir", empty], in: directory)
        #expect(inEmpty.status == 1)
        #expect(inEmpty.stderr.contains("there is no cache in \(empty)"), "\(inEmpty.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty).isEmpty)
    }

    /// The names the hello should list: the default chain's interceptors for batch's configuration, without their
    /// `Interceptor` suffix, then the transport.
    static func expectedChain(coalescing: Bool) -> String {
        let configuration = HTTPCacheClient.Configuration(outerInterceptors: [RedirectInterceptor()], isRequestCoalescingEnabled: coalescing)
        let names = HTTPCacheClient.defaultInterceptors(for: configuration).map { interceptor in
            (interceptor as? CachePolicyInterceptor)?.description
                ?? String(String(describing: type(of: interceptor)).dropLast("Interceptor".count))
        }
        return (names + ["libcurl"]).joined(separator: " → ")
    }

    @Test("the hello names the chain the client runs (with and without coalescing)", arguments: [true, false])
    func helloNamesTheRealChain(_ coalescing: Bool) async throws {
        let expected = Self.expectedChain(coalescing: coalescing)
        #expect(expected.contains("ranges") || !HTTPCacheClient.Configuration().isRangeServingEnabled)
        var config = ""
        try await withBatch(coalescing ? [] : ["--no-coalescing"], checkHello: { hello in
            if case .string(let text)? = hello["config"] { config = text }
        }) { _, _, _ in }
        #expect(config.contains("; chain: \(expected); "), "\(config) lacks \(expected)")
    }
}
