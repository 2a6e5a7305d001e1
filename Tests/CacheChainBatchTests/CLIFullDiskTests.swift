import CacheChainBatch
import CacheChainLoopback
import CacheChainTesting
import Foundation
import Testing

/// Issue 46.8: a disk filled by someone else (a real `tmpfs` filled to its last byte, ``ScratchFileSystem``, root
/// only; elsewhere the test prints why and skips) or mounted read-only. `batch` starts and serves what it can —
/// hits, and misses fetched without storing, with a warning — and `purge --all` works with 0 bytes free.
@Suite("cachechain on a disk filled by someone else", .tags(.integration))
struct CLIFullDiskTests: BatchSubprocessSuite {
    private func config(_ hello: JSONValue) -> String {
        guard case .string(let config)? = hello["config"] else { return "" }
        return config
    }

    @Test("full disk: batch serves the stored response and fetches without storing, on an existing and a new directory; purge --all empties the cache")
    func fullDisk() async throws {
        guard let scratch = ScratchFileSystem.mount(bytes: 16 << 20) else { return }
        defer { scratch.unmount() }
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start()
        origin.route("/stored", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "STORED-BODY"))
        origin.route("/large", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: String(repeating: "L", count: 1 << 20)))
        origin.route("/new", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "NEW-BODY"))
        let cacheDirectory = scratch.path + "/cache"
        for path in ["/stored", "/large"] {
            let stored = try await run(["get", origin.url(path), "-o", "/dev/null", "--cache-dir", cacheDirectory], in: directory)
            #expect(stored.status == 0, "\(stored.stderr)")
        }
        scratch.fill()

        var helloConfig = ""
        try await withBatch(["--backend", "disk", "--cache-dir", cacheDirectory], checkHello: { helloConfig = config($0) }) { batch, _, _ in
            let hit = try await roundTrip(batch, 1, origin.url("/stored"))
            #expect(hit["cache_status"] == .string("hit"), "\(hit)")
            #expect(hit["body"] == .string("STORED-BODY"))
            let miss = try await roundTrip(batch, 2, origin.url("/new"))
            #expect(miss["status"] == .integer(200), "\(miss)")
            #expect(miss["body"] == .string("NEW-BODY"))
            #expect(batch.stderr.contains("warning: cannot write the cache in \(cacheDirectory)"), "\(batch.stderr)")
        }
        #expect(helloConfig.contains("read-only"), "\(helloConfig)")

        let newDirectory = scratch.path + "/new-cache"
        try await withBatch(["--backend", "disk", "--cache-dir", newDirectory], checkHello: { helloConfig = config($0) }) { batch, _, _ in
            let miss = try await roundTrip(batch, 1, origin.url("/new"))
            #expect(miss["body"] == .string("NEW-BODY"), "\(miss)")
            #expect(batch.stderr.contains("warning: cannot use the cache in \(newDirectory)"), "\(batch.stderr)")
        }
        #expect(helloConfig.contains("no cache"), "\(helloConfig)")

        let purge = try await run(["purge", "--all", "--cache-dir", cacheDirectory], in: directory)
        #expect(purge.status == 0, "\(purge.stderr)")
        #expect(purge.stdout.contains("removed every entry"), "\(purge.stdout)")
        let list = try await run(["ls", "--cache-dir", cacheDirectory], in: directory)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(!list.stdout.contains("/stored") && !list.stdout.contains("/large"), "\(list.stdout)")
        try await origin.shutdown()
    }

    @Test("read-only file system: batch starts read-only as get does, serving its hits")
    func readOnlyFileSystem() async throws {
        guard let scratch = ScratchFileSystem.mount(bytes: 16 << 20) else { return }
        defer { scratch.unmount() }
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start()
        origin.route("/stored", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "STORED-BODY"))
        origin.route("/new", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "NEW-BODY"))
        let cacheDirectory = scratch.path + "/cache"
        let stored = try await run(["get", origin.url("/stored"), "--cache-dir", cacheDirectory], in: directory)
        #expect(stored.status == 0, "\(stored.stderr)")
        try scratch.remountReadOnly()
        var helloConfig = ""
        try await withBatch(["--backend", "disk", "--cache-dir", cacheDirectory], checkHello: { helloConfig = config($0) }) { batch, _, _ in
            let hit = try await roundTrip(batch, 1, origin.url("/stored"))
            #expect(hit["cache_status"] == .string("hit"), "\(hit)")
            let miss = try await roundTrip(batch, 2, origin.url("/new"))
            #expect(miss["body"] == .string("NEW-BODY"), "\(miss)")
            #expect(batch.stderr.contains("using it read-only"), "\(batch.stderr)")
        }
        #expect(helloConfig.contains("read-only"), "\(helloConfig)")
        #expect(origin.requestCount(for: "/stored") == 1)
        try await origin.shutdown()
    }
}
