import CacheChainBatch
import CacheChainLoopback
import Foundation
import Testing

/// Stored parts (issue 45.3) as `cachechain batch` exposes them (protocol version 1; no new reply member), through
/// the subprocess, libcurl and the loopback origin.
@Suite("cachechain batch: stored 206 parts", .tags(.integration))
struct BatchPartialContentTests: BatchSubprocessSuite {
    @Test("a stored 206 answers a covered range: status 206, cache_status hit, its Content-Range and bytes", arguments: [[], ["--shared"]])
    func storedPartServed(_ arguments: [String]) async throws {
        try await withBatch(arguments) { batch, origin, _ in
            var route = LoopbackRoute(headers: [("Cache-Control", "public, max-age=600")], body: "abcdefghijklmnopqrstuvwxyz", etag: "\"v1\"")
            route.servesRanges = true
            origin.route("/r", route)
            let url = origin.url("/r")
            func ranged(_ id: Int, _ range: String) async throws -> JSONValue {
                try batch.send(#"{"type":"request","id":\#(id),"url":"\#(url)","headers":[["Range","\#(range)"]]}"#)
                return try await batch.nextMessage()
            }
            let first = try await ranged(1, "bytes=5-19")
            #expect(first["status"] == .integer(206), "\(first)")
            #expect(first["cache_status"] == .string("miss"))
            let part = try await ranged(2, "bytes=10-14")
            #expect(part["status"] == .integer(206), "\(part)")
            #expect(part["cache_status"] == .string("hit"), "\(part)")
            #expect(part["body"] == .string("klmno"))
            #expect(header(part, "Content-Range") == "bytes 10-14/26")
            #expect(origin.requestCount(for: "/r") == 1)
        }
    }
}
