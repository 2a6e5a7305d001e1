import CacheChainBatch
import CacheChainLoopback
import CacheChainTesting
import Foundation
import Testing

/// Issue 46.9: `cachechain batch`'s memory bound by default, about `--max-in-flight` × 3 × `--max-inline-body`,
/// fits a small container: 8 × 3 × 8 MiB = 192 MiB (it was 64 × 3 × 8 MiB, 1.5 GiB). Counted, not measured: with
/// a peer that reads no reply, exactly the default number of requests is performed, each holding its reply.
@Suite("cachechain batch: the default memory bound", .tags(.integration))
struct BatchMemoryBoundTests: BatchSubprocessSuite {
    @Test("the default bound is 8 requests in flight of at most 8 MiB each: 192 MiB")
    func defaultBound() {
        #expect(BatchRunner.defaultMaximumInFlight == 8)
        #expect(BatchBodyLimit.defaultMaximumInlineSize == 8 << 20)
        #expect(BatchRunner.defaultMaximumInFlight * 3 * BatchBodyLimit.defaultMaximumInlineSize <= 192 << 20)
    }

    @Test("a peer that reads no reply: of 40 requests for 1 MiB bodies, the default 8 are performed, then none")
    func pausedReaderHoldsDefaultInFlight() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start()
        origin.route("/large", handler: { _ in LoopbackRoute(headers: [("Cache-Control", "no-store")], body: String(repeating: "y", count: 1 << 20)) })
        let unread = Pipe()  // the child's stdout, which nobody reads: its first reply fills it
        let batch = try BatchProcess(["batch"], directory: directory, standardOutput: unread.fileHandleForWriting)
        defer { batch.terminate() }
        try batch.send(#"{"type":"hello","protocol":1}"#)
        for id in 1...40 { try batch.send(request(id, origin.url("/large?n=\(id)"))) }
        try await waitUntil("the default number of requests reached the origin", timeout: .seconds(60)) {
            origin.requestCount(for: "/large") >= 8
        }
        // A window for what must not happen (more requests while every reply waits for the reader): it can only let
        // a defect through, never fail a correct build.
        try await Task.sleep(for: .milliseconds(500))
        #expect(origin.requestCount(for: "/large") == 8, "requests performed while nobody read a reply")
        try await origin.shutdown()
    }
}
