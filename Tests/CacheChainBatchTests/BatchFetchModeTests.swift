import CacheChainBatch
import CacheChainLoopback
import Foundation
import Testing

/// The parts of a `cachechain batch` request that follow other standards: the Fetch cache mode `no-cache`
/// (as the Fetch standard's HTTP-network-or-cache fetch and browsers do it) and header values read as
/// HTTP reads them (RFC 9110 §5.5). Through the subprocess, libcurl and the loopback origin.
@Suite("cachechain batch as a subprocess: Fetch no-cache and header values", .tags(.integration))
struct BatchFetchModeTests: BatchSubprocessSuite {
    private func line(_ id: Int, _ url: String, mode: String? = nil, headers: String = "[]") -> String {
        let cacheMode = mode.map { #","cache_mode":"\#($0)""# } ?? ""
        return #"{"type":"request","id":\#(id),"url":"\#(url)","headers":\#(headers)\#(cacheMode)}"#
    }

    private func send(_ batch: BatchProcess, _ line: String) async throws -> JSONValue {
        try batch.send(line)
        return try await batch.nextMessage()
    }

    @Test("no-cache revalidates a fresh response, sending Cache-Control: max-age=0; the 304 freshens it (an immutable one is not: BatchLastRFCGapsTests)")
    func noCacheRevalidatesFresh() async throws {
        try await withBatch { batch, origin, _ in
            origin.route(
                "/immutable",
                LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "v1", etag: "\"v1\"")
            )
            let url = origin.url("/immutable")
            #expect(try await send(batch, line(1, url))["cache_status"] == .string("miss"))
            #expect(try await send(batch, line(2, url))["cache_status"] == .string("hit"))
            let revalidated = try await send(batch, line(3, url, mode: "no-cache"))
            #expect(revalidated["status"] == .integer(200))
            #expect(revalidated["body"] == .string("v1"))
            #expect(revalidated["cache_status"] == .string("revalidated"), "\(revalidated)")
            #expect(origin.requestCount(for: "/immutable") == 2)
            let sent = origin.receivedRequests.last
            #expect(sent?.header("If-None-Match") == "\"v1\"")
            #expect(sent?.header("Cache-Control") == "max-age=0", "as the Fetch standard appends it")
            #expect(try await send(batch, line(4, url))["cache_status"] == .string("hit"))
            #expect(origin.requestCount(for: "/immutable") == 2)
        }
    }

    @Test("no-cache with nothing stored: a normal request with Cache-Control: max-age=0, and the response is stored")
    func noCacheCold() async throws {
        try await withBatch { batch, origin, _ in
            origin.route("/cold", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "cold", etag: "\"c\""))
            let url = origin.url("/cold")
            let first = try await send(batch, line(1, url, mode: "no-cache"))
            #expect(first["cache_status"] == .string("miss"))
            let sent = origin.receivedRequests.last
            #expect(sent?.header("Cache-Control") == "max-age=0")
            #expect(sent?.header("If-None-Match") == nil)
            #expect(try await send(batch, line(2, url))["cache_status"] == .string("hit"))
            #expect(origin.requestCount(for: "/cold") == 1)
        }
    }

    @Test("no-cache leaves a Cache-Control the caller sent alone; reload and no-store send Pragma and Cache-Control: no-cache unless given")
    func fetchRequestFields() async throws {
        try await withBatch { batch, origin, _ in
            origin.route("/own", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "own"))
            let url = origin.url("/own")
            _ = try await send(batch, line(1, url, mode: "no-cache", headers: #"[["Cache-Control","max-stale=5"]]"#))
            #expect(origin.receivedRequests.last?.headerValues("Cache-Control") == ["max-stale=5"])
            for (id, mode) in [(2, "reload"), (3, "no-store")] {
                let reply = try await send(batch, line(id, url, mode: mode))
                #expect(reply["cache_status"] == .string("miss"), "\(mode): \(reply)")
                #expect(origin.receivedRequests.last?.headerValues("Cache-Control") == ["no-cache"], "\(mode)")
                #expect(origin.receivedRequests.last?.headerValues("Pragma") == ["no-cache"], "\(mode)")
            }
            #expect(try await send(batch, line(4, url))["cache_status"] == .string("hit"), "reload stored its response")
            _ = try await send(batch, line(5, url, mode: "reload", headers: #"[["Pragma","x"]]"#))
            #expect(origin.receivedRequests.last?.headerValues("Pragma") == ["x"])
            #expect(origin.requestCount(for: "/own") == 4)
        }
    }

    @Test("a header value padded with spaces and tabs is accepted and sent without them (RFC 9110 §5.5)")
    func paddedHeaderValue() async throws {
        try await withBatch { batch, origin, _ in
            origin.route("/padded", LoopbackRoute(body: "ok"))
            let reply = try await send(
                batch,
                line(1, origin.url("/padded"), headers: #"[["X-Padded","  two  words\t"],["X-Blank"," \t "]]"#)
            )
            #expect(reply["status"] == .integer(200), "\(reply)")
            let sent = origin.receivedRequests.last
            #expect(sent?.header("X-Padded") == "two  words")
            #expect(sent?.header("X-Blank") == "")
        }
    }
}
