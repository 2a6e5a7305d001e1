import CacheChain
import CacheChainLoopback
import Foundation
import Testing

/// `cachechain purge --group NAME --origin URL` (RFC 9875, issue 45.9) as a subprocess, against two loopback
/// origins and a real cache directory.
@Suite("cachechain purge --group", .tags(.integration))
struct CLIPurgeGroupTests: BatchSubprocessSuite {
    @Test("purge --group a --origin removes that origin's group a only; --group without --origin, or a bad origin, exits 64")
    func purgeGroup() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start()
        let other = try await LoopbackOrigin.start()
        for server in [origin, other] {
            server.route("/a1", LoopbackRoute(headers: [("Cache-Control", "max-age=600"), ("Cache-Groups", "\"a\"")], body: "a1"))
            server.route("/a2", LoopbackRoute(headers: [("Cache-Control", "max-age=600"), ("Cache-Groups", "\"b\", \"a\"")], body: "a2"))
            server.route("/b", LoopbackRoute(headers: [("Cache-Control", "max-age=600"), ("Cache-Groups", "\"b\"")], body: "b"))
        }
        let cache = ["--cache-dir", directory.appendingPathComponent("cache").path]
        for path in ["/a1", "/a2", "/b"] { #expect(try await run(["get", origin.url(path)] + cache, in: directory).status == 0) }
        #expect(try await run(["get", other.url("/a1")] + cache, in: directory).status == 0)

        let purged = try await run(["purge", "--group", "a", "--origin", origin.url("/")] + cache, in: directory)
        #expect(purged.status == 0, "\(purged.stderr)")
        #expect(purged.stdout == "removed 2 entries; 2 left")
        let listing = try await run(["ls"] + cache, in: directory).stdout
        #expect(listing.contains(origin.url("/b")) && listing.contains(other.url("/a1")), "\(listing)")
        #expect(!listing.contains(origin.url("/a1")) && !listing.contains(origin.url("/a2")), "\(listing)")

        let noOrigin = try await run(["purge", "--group", "a"] + cache, in: directory)
        #expect(noOrigin.status == 64)
        #expect(noOrigin.stderr.contains("--group needs --origin"))
        let badOrigin = try await run(["purge", "--group", "a", "--origin", "example.com"] + cache, in: directory)
        #expect(badOrigin.status == 64)
        #expect(badOrigin.stderr.contains("is not an origin"))
        let strayOrigin = try await run(["purge", "--all", "--origin", origin.url("/")] + cache, in: directory)
        #expect(strayOrigin.status == 64)
        try await origin.shutdown()
        try await other.shutdown()
    }
}
