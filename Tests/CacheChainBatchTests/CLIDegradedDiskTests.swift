import CacheChainLoopback
import CacheChainTesting
import Foundation
import Testing

/// Issue 25.8 through the CLI: on a read-only file system `stats`, `ls` and `explain` open the cache read-only
/// and work, and `get` still fetches (a hit is served from the cache, a miss is fetched without storing)
/// with a warning. The file system is a real `tmpfs` remounted read-only (``ScratchFileSystem``, root only;
/// elsewhere the test prints why and skips).
@Suite("cachechain on a read-only disk", .tags(.integration))
struct CLIDegradedDiskTests: BatchSubprocessSuite {
    @Test("stats, ls and explain work on a read-only cache; get serves its hit and fetches a miss without storing, with a warning")
    func readOnlyFileSystem() async throws {
        guard let scratch = ScratchFileSystem.mount(bytes: 16 << 20) else { return }
        defer { scratch.unmount() }
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start()
        origin.route("/stored", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "STORED-BODY"))
        origin.route("/new", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "NEW-BODY"))
        let cache = ["--cache-dir", scratch.path + "/cache"]
        let first = try await run(["get", origin.url("/stored")] + cache, in: directory)
        #expect(first.status == 0 && first.stdout == "STORED-BODY", "\(first.stderr)")
        try scratch.remountReadOnly()

        let stats = try await run(["stats"] + cache, in: directory)
        #expect(stats.status == 0, "\(stats.stderr)")
        let list = try await run(["ls"] + cache, in: directory)
        #expect(list.status == 0 && list.stdout.contains("/stored"), "\(list.stderr)")
        let explain = try await run(["explain", origin.url("/stored")] + cache, in: directory)
        #expect(explain.status == 0, "\(explain.stderr)")

        let hit = try await run(["get", origin.url("/stored")] + cache, in: directory)
        #expect(hit.status == 0 && hit.stdout == "STORED-BODY", "\(hit.stderr)")
        #expect(hit.stderr.contains("warning: cannot write the cache"), "\(hit.stderr)")
        #expect(origin.requestCount(for: "/stored") == 1, "the read-only cache answered")
        let miss = try await run(["get", origin.url("/new")] + cache, in: directory)
        #expect(miss.status == 0 && miss.stdout == "NEW-BODY", "\(miss.stderr)")
        #expect(miss.stderr.contains("warning: the response was not stored"), "\(miss.stderr)")
    }
}
