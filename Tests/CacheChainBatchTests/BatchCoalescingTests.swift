import CacheChainBatch
import CacheChainLoopback
import CacheChainTesting
import Foundation
import Testing

/// Request coalescing as `cachechain batch` users see it: concurrent requests for one cold URL share one
/// trip to the origin.
@Suite("cachechain batch as a subprocess: request coalescing", .tags(.integration))
struct BatchCoalescingTests: BatchSubprocessSuite {
    /// Sends `count` requests for one URL at once and returns their replies.
    private func concurrentReplies(_ batch: BatchProcess, count: Int, url: String) async throws -> [JSONValue] {
        for id in 1...count { try batch.send(request(id, url)) }
        var replies: [JSONValue] = []
        for _ in 1...count { replies.append(try await batch.nextMessage()) }
        return replies
    }

    private func config(_ hello: JSONValue) -> String {
        guard case .string(let config)? = hello["config"] else { return "" }
        return config
    }

    @Test("100 concurrent requests for one cold URL reach the origin once, and all get its response")
    func hundredColdRequests() async throws {
        try await withBatch { batch, origin, _ in
            // The origin takes its time, so the requests overlap: without coalescing most of them would reach
            // it. With coalescing the count is 1 whatever the timing (a request that comes after the first
            // response was stored is a hit).
            origin.route(
                "/cold",
                LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "cold", delay: .milliseconds(400))
            )
            let replies = try await concurrentReplies(batch, count: 100, url: origin.url("/cold"))
            #expect(Set(replies.compactMap { $0["id"] }) == Set((1...100).map { JSONValue.integer(Int64($0)) }))
            #expect(replies.allSatisfy { $0["status"] == .integer(200) && $0["body"] == .string("cold") })
            #expect(origin.requestCount(for: "/cold") == 1)
        }
    }

    @Test("--no-coalescing: every concurrent request reaches the origin; the hello says which chain runs")
    func switchedOff() async throws {
        try await withBatch(checkHello: { hello in
            #expect(config(hello).contains("CachePolicy (coalescing"), "\(hello)")
        }) { _, _, _ in }
        // 20 concurrent requests: above the default in-flight limit (8), which this test is not about.
        try await withBatch(["--no-coalescing", "--max-in-flight", "64"], checkHello: { hello in
            #expect(!config(hello).contains("coalescing"), "\(hello)")
        }) { batch, origin, _ in
            let gate = LoopbackGate()
            var held = LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "held")
            held.gate = gate
            origin.route("/held", held)
            for id in 1...20 { try batch.send(request(id, origin.url("/held"))) }
            try await waitUntil("all 20 requests reach the origin") { gate.waitingCount == 20 }
            gate.open()
            for _ in 1...20 { #expect(try await batch.nextMessage()["body"] == .string("held")) }
            #expect(origin.requestCount(for: "/held") == 20)
        }
    }
}
