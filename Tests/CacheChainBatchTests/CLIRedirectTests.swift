import CacheChainLoopback
import Foundation
import Testing

/// `cachechain get -L` as a subprocess: redirects followed like curl's `-L`, each hop through the cache (issue 44.3).
@Suite("cachechain get -L follows redirects through the cache", .tags(.integration))
struct CLIRedirectTests: BatchSubprocessSuite {
    @Test("without -L the 301 is the answer; with -L its target, each hop cached; --max-redirs bounds a loop")
    func location() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start()
        origin.route("/old", LoopbackRoute(status: 301, headers: [("Location", "/new"), ("Cache-Control", "max-age=600")], body: "moved"))
        origin.route("/new", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "here"))
        origin.route("/loop", LoopbackRoute(status: 302, headers: [("Location", "/loop"), ("Cache-Control", "no-store")], body: ""))
        let cache = ["--cache-dir", directory.appendingPathComponent("cache").path]

        let unfollowed = try await run(["get", origin.url("/old")] + cache, in: directory)
        #expect(unfollowed.status == 0)
        #expect(unfollowed.stdout == "moved", "as curl without -L")
        #expect(origin.requestCount(for: "/new") == 0)

        let followed = try await run(["get", "-L", "--trace", origin.url("/old")] + cache, in: directory)
        #expect(followed.status == 0, "\(followed.stderr)")
        #expect(followed.stdout == "here")
        #expect(followed.stderr.contains("redirected: 301 → \(origin.baseURL)/new"), "\(followed.stderr)")
        let again = try await run(["get", "--location", "--trace", origin.url("/old")] + cache, in: directory)
        #expect(again.stdout == "here")
        #expect(again.stderr.contains("HIT 200"), "\(again.stderr)")
        #expect(origin.requestCount(for: "/old") == 1 && origin.requestCount(for: "/new") == 1, "both hops came from the cache")

        let looping = try await run(["get", "-L", "--max-redirs", "2", origin.url("/loop")] + cache, in: directory)
        #expect(looping.status == 47, "curl's CURLE_TOO_MANY_REDIRECTS")
        #expect(looping.stderr.contains("more than 2 redirects"), "\(looping.stderr)")
        #expect(origin.requestCount(for: "/loop") == 3)
        try await origin.shutdown()
    }

    @Test("-L -v shows every hop that went to the origin, as curl does, then the final exchange")
    func verboseHops() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start()
        origin.route("/first", LoopbackRoute(status: 302, headers: [("Location", "/second"), ("Cache-Control", "no-store")], body: ""))
        origin.route("/second", LoopbackRoute(status: 301, headers: [("Location", "/last"), ("Cache-Control", "max-age=600")], body: ""))
        origin.route("/last", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "here"))
        let cache = ["--cache-dir", directory.appendingPathComponent("cache").path]

        let verbose = try await run(["get", "-L", "-v", origin.url("/first")] + cache, in: directory)
        #expect(verbose.status == 0, "\(verbose.stderr)")
        #expect(verbose.stdout == "here")
        let lines = verbose.stderr.split(separator: "\n").map(String.init)
        func position(_ prefix: String) -> Int? { lines.firstIndex { $0.hasPrefix(prefix) } }
        let order = ["> GET /first", "< HTTP/1.1 302", "* Issue another request to this URL: '/second'",
                     "> GET /second", "< HTTP/1.1 301", "* Issue another request to this URL: '/last'",
                     "> GET /last", "< HTTP/1.1 200"].map(position)
        #expect(order.allSatisfy { $0 != nil }, "\(verbose.stderr)")
        #expect(order.compactMap { $0 } == order.compactMap { $0 }.sorted(), "hops in the order they were sent: \(verbose.stderr)")

        // The 301 is stored: the next -L -v sends only the first and last hops.
        let again = try await run(["get", "-L", "-v", origin.url("/first")] + cache, in: directory)
        #expect(again.status == 0)
        #expect(again.stderr.contains("> GET /first") && !again.stderr.contains("> GET /second"), "\(again.stderr)")
        #expect(again.stderr.contains("* answered from the cache: nothing was sent to the origin"), "the final hop is stored: \(again.stderr)")
        try await origin.shutdown()
    }
}
