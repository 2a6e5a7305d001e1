import CacheChainBatch
import CacheChainLoopback
import Foundation
import Testing

/// `cachechain batch` driven as a subprocess through stdin and stdout, against the loopback origin: the
/// HTTP behaviour the protocol exposes.
@Suite("cachechain batch as a subprocess: HTTP behaviour", .tags(.integration))
struct BatchSubprocessTests: BatchSubprocessSuite {
    @Test("the hello describes the pipeline; a MISS then a HIT, the origin asked once")
    func missThenHit() async throws {
        try await withBatch { batch, origin, _ in
            origin.route("/a", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "hello"))
            let first = try await roundTrip(batch, 1, origin.url("/a"))
            #expect(first["status"] == .integer(200))
            #expect(first["status_text"] == .string("OK"))
            #expect(first["body"] == .string("hello"))
            #expect(first["cache_status"] == .string("miss"))
            let second = try await roundTrip(batch, 2, origin.url("/a"))
            #expect(second["body"] == .string("hello"))
            #expect(second["cache_status"] == .string("hit"))
            #expect(header(second, "cache-control") == "max-age=60")
            #expect(header(second, "age") != nil)
            guard case .array(let trace)? = second["trace"], case .string(let reason)? = trace.first else {
                Issue.record("no trace: \(second)")
                return
            }
            #expect(reason.hasPrefix("fresh"))
            #expect(origin.requestCount(for: "/a") == 1)
        }
    }

    @Test("a stale response is revalidated: conditional GET, 304, REVALIDATED 200 with the stored body")
    func revalidation() async throws {
        try await withBatch { batch, origin, _ in
            origin.route("/r", LoopbackRoute(headers: [("Cache-Control", "max-age=0")], body: "stored", etag: "\"v1\""))
            let first = try await roundTrip(batch, 1, origin.url("/r"))
            #expect(first["cache_status"] == .string("miss"))
            let second = try await roundTrip(batch, 2, origin.url("/r"))
            #expect(second["status"] == .integer(200))
            #expect(second["body"] == .string("stored"))
            #expect(second["cache_status"] == .string("revalidated"))
            #expect(origin.receivedRequests.last?.header("If-None-Match") == "\"v1\"")
            #expect(origin.requestCount(for: "/r") == 2)
        }
    }

    @Test("redirect manual returns the 3xx with its body; follow reaches the target")
    func manualRedirect() async throws {
        try await withBatch { batch, origin, _ in
            origin.route("/old", LoopbackRoute(status: 302, headers: [("Location", "/new")], body: "moved"))
            origin.route("/new", LoopbackRoute(body: "here"))
            let manual = try await roundTrip(batch, 1, origin.url("/old"), #","redirect":"manual""#)
            #expect(manual["status"] == .integer(302))
            #expect(manual["status_text"] == .string("Found"))
            #expect(manual["body"] == .string("moved"))
            #expect(header(manual, "location") == "/new")
            #expect(origin.requestCount(for: "/new") == 0)
            let followed = try await roundTrip(batch, 2, origin.url("/old"), #","redirect":"follow""#)
            #expect(followed["status"] == .integer(200))
            #expect(followed["body"] == .string("here"))
            #expect(origin.requestCount(for: "/new") == 1)
        }
    }

    @Test("50 concurrent requests: the 49 fast replies all arrive before the one slow response")
    func slowResponseDoesNotDelayOthers() async throws {
        try await withBatch { batch, origin, _ in
            let gate = LoopbackGate()
            var slow = LoopbackRoute(body: "slow")
            slow.gate = gate
            origin.route("/slow", slow)
            origin.route("/fast", handler: { request in LoopbackRoute(body: "fast \(request.path)") })
            try batch.send(request(0, origin.url("/slow")))
            for id in 1...49 { try batch.send(request(id, origin.url("/fast?n=\(id)"))) }
            var fast: Set<Int64> = []
            for _ in 1...49 {
                let reply = try await batch.nextMessage()
                guard case .integer(let id)? = reply["id"] else {
                    Issue.record("reply without id: \(reply)")
                    return
                }
                #expect(id != 0, "the slow reply came before all fast ones")
                #expect(reply["body"] == .string("fast /fast?n=\(id)"))
                fast.insert(id)
            }
            #expect(fast == Set(1...49))
            #expect(gate.waitingCount == 1, "the slow request is still held at the origin")
            // End the session while the slow request is in flight: it must still be answered.
            try batch.end()
            gate.open()
            let last = try await batch.nextMessage()
            #expect(last["id"] == .integer(0))
            #expect(last["body"] == .string("slow"))
        }
    }

    @Test("a malformed line gets an error line with its number; the session goes on")
    func malformedLine() async throws {
        try await withBatch { batch, origin, _ in
            origin.route("/ok", LoopbackRoute(body: "ok"))
            try batch.send("this is not json")
            let error = try await batch.nextMessage()
            #expect(error["type"] == .string("error"))
            #expect(error["line"] == .integer(2))
            #expect(error["error"] != nil)
            try batch.send(#"{"type":"request","id":3,"url":"not a url"}"#)
            let invalid = try await batch.nextMessage()
            #expect(invalid["id"] == .integer(3))
            #expect(invalid["error"] != nil)
            let ok = try await roundTrip(batch, 4, origin.url("/ok"))
            #expect(ok["body"] == .string("ok"))
        }
    }

    @Test("the application's own If-None-Match matching the stored ETag is answered 304 by the cache")
    func applicationConditional() async throws {
        try await withBatch { batch, origin, _ in
            origin.route(
                "/e",
                LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "entity", etag: "\"v1\"")
            )
            _ = try await roundTrip(batch, 1, origin.url("/e"))
            try batch.send(
                #"{"type":"request","id":2,"method":"GET","url":"\#(origin.url("/e"))","headers":[["If-None-Match","\"v1\""]]}"#
            )
            let matching = try await batch.nextMessage()
            #expect(matching["status"] == .integer(304))
            #expect(matching["status_text"] == .string("Not Modified"))
            #expect(matching["body"] == .string(""))
            #expect(matching["cache_status"] == .string("hit"))
            try batch.send(
                #"{"type":"request","id":3,"method":"GET","url":"\#(origin.url("/e"))","headers":[["If-None-Match","\"v0\""]]}"#
            )
            let other = try await batch.nextMessage()
            #expect(other["status"] == .integer(200))
            #expect(other["body"] == .string("entity"))
            #expect(origin.requestCount(for: "/e") == 1)
        }
    }

    @Test("only-if-cached on a cold URL is a 504 without touching the network; no-store stores nothing")
    func onlyIfCached() async throws {
        try await withBatch { batch, origin, _ in
            origin.route("/c", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "c"))
            let cold = try await roundTrip(batch, 1, origin.url("/c"), #","cache_mode":"only-if-cached""#)
            #expect(cold["status"] == .integer(504))
            #expect(cold["cache_status"] == .string("unsatisfiable"))
            #expect(origin.requestCount(for: "/c") == 0)
            let noStore = try await roundTrip(batch, 2, origin.url("/c"), #","cache_mode":"no-store""#)
            #expect(noStore["status"] == .integer(200))
            let stillCold = try await roundTrip(batch, 3, origin.url("/c"), #","cache_mode":"only-if-cached""#)
            #expect(stillCold["status"] == .integer(504))
            _ = try await roundTrip(batch, 4, origin.url("/c"))
            let warm = try await roundTrip(batch, 5, origin.url("/c"), #","cache_mode":"only-if-cached""#)
            #expect(warm["status"] == .integer(200))
            #expect(warm["body"] == .string("c"))
            #expect(origin.requestCount(for: "/c") == 2)
        }
    }

    @Test("HEAD after GET is answered from the stored GET response, with an empty body")
    func headAfterGet() async throws {
        try await withBatch { batch, origin, _ in
            origin.route("/h", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "full body"))
            _ = try await roundTrip(batch, 1, origin.url("/h"))
            try batch.send(#"{"type":"request","id":2,"method":"HEAD","url":"\#(origin.url("/h"))"}"#)
            let head = try await batch.nextMessage()
            #expect(head["status"] == .integer(200))
            #expect(head["body"] == .string(""))
            #expect(head["cache_status"] == .string("hit"))
            #expect(origin.requestCount(for: "/h") == 1)
        }
    }

    @Test(
        "header bytes: a request value's code points ≤ U+00FF go out as bytes; reply bytes come back one per code point"
    )
    func latin1Headers() async throws {
        try await withBatch { batch, origin, _ in
            origin.route(
                "/l",
                handler: { request in
                    LoopbackRoute(headers: [("X-Echo", request.header("X-Name") ?? "-")], body: "l")
                }
            )
            // "Ã©" is the bytes C3 A9: the UTF-8 of "é", which the origin (reading UTF-8) sees as "é".
            try batch.send(
                #"{"type":"request","id":1,"url":"\#(origin.url("/l"))","headers":[["X-Name","caf\u00c3\u00a9"]]}"#
            )
            let reply = try await batch.nextMessage()
            #expect(origin.receivedRequests.last?.header("X-Name") == "café")
            #expect(header(reply, "x-echo") == "caf\u{C3}\u{A9}")
        }
    }

    @Test("timeout_ms gives up on a response that does not come and replies with an error")
    func timeout() async throws {
        try await withBatch { batch, origin, _ in
            let gate = LoopbackGate()
            var held = LoopbackRoute(body: "late")
            held.gate = gate
            origin.route("/held", held)
            let reply = try await roundTrip(batch, 1, origin.url("/held"), #","timeout_ms":200"#)
            guard case .string(let error)? = reply["error"] else {
                Issue.record("not an error reply: \(reply)")
                return
            }
            #expect(error.contains("timed-out"), "\(error)")
            gate.open()
        }
    }
}
