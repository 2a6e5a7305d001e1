import CacheChainBatch
import CacheChainLoopback
import Foundation
import Testing

/// Cache Groups (RFC 9875, issue 45.9) as `cachechain batch` exposes them (protocol version 1, no new member):
/// a `POST` whose reply carries `Cache-Group-Invalidation` invalidates the group on its origin, in a private and a
/// shared cache.
@Suite("cachechain batch: cache groups", .tags(.integration))
struct BatchCacheGroupsTests: BatchSubprocessSuite {
    @Test("a POST answered with Cache-Group-Invalidation \"a\": group a's responses are misses next, group b's still hits", arguments: [[], ["--shared"]])
    func postInvalidatesGroup(_ arguments: [String]) async throws {
        try await withBatch(arguments) { batch, origin, _ in
            for (path, groups) in [("/a1", "\"a\""), ("/a2", "\"a\", \"b\""), ("/b", "\"b\"")] {
                origin.route(path, LoopbackRoute(headers: [("Cache-Control", "public, max-age=600"), ("Cache-Groups", groups)], body: "x"))
            }
            origin.route("/update", LoopbackRoute(headers: [("Cache-Group-Invalidation", "\"a\"")], body: "updated"))
            var id = 0
            func statuses() async throws -> [JSONValue?] {
                var found: [JSONValue?] = []
                for path in ["/a1", "/a2", "/b"] {
                    id += 1
                    found.append(try await roundTrip(batch, id, origin.url(path))["cache_status"])
                }
                return found
            }
            #expect(try await statuses() == [.string("miss"), .string("miss"), .string("miss")])
            #expect(try await statuses() == [.string("hit"), .string("hit"), .string("hit")])
            try batch.send(#"{"type":"request","id":100,"method":"POST","url":"\#(origin.url("/update"))","headers":[],"body":"x"}"#)
            let posted = try await batch.nextMessage()
            #expect(posted["status"] == .integer(200), "\(posted)")
            guard case .array(let trace)? = posted["trace"] else { Issue.record("no trace: \(posted)"); return }
            #expect(trace.contains { $0 == .string("invalidated: cache group \"a\" on \(CacheKeyOrigin.of(origin.url("/")))") }, "\(trace)")
            #expect(try await statuses() == [.string("miss"), .string("miss"), .string("hit")])
        }
    }
}

/// The origin text the trace names: the URL's scheme and authority.
enum CacheKeyOrigin {
    static func of(_ url: String) -> String {
        String(url.prefix { $0 != "/" }) + "//" + String(url.dropFirst(url.prefix { $0 != "/" }.count + 2).prefix { $0 != "/" })
    }
}
