import CacheChainBatch
import CacheChainLoopback
import Foundation
import Testing

/// Issue 45's behaviours as `cachechain batch` exposes them (protocol version 1), through the subprocess, libcurl
/// and the loopback origin: stale when the origin is unreachable (RFC 9111 §4.2.4) and `immutable` under the
/// Fetch cache modes (RFC 8246).
@Suite("cachechain batch: stale when unreachable, immutable", .tags(.integration))
struct BatchLastRFCGapsTests: BatchSubprocessSuite {
    /// The reason codes of a reply's trace (each entry is `code: detail`).
    func traceCodes(_ reply: JSONValue) -> [String] {
        guard case .array(let trace)? = reply["trace"] else { return [] }
        return trace.compactMap { entry in
            guard case .string(let text) = entry else { return nil }
            return String(text.prefix { $0 != ":" })
        }
    }

    /// The hello's `config` text.
    func config(_ hello: JSONValue) -> String {
        guard case .string(let text)? = hello["config"] else { return "" }
        return text
    }

    /// Stores an already stale response (`max-age=0`, no validator), then makes the origin close the connection
    /// without answering, and asks again.
    func staleThenDropped(_ batch: BatchProcess, _ origin: LoopbackOrigin) async throws -> JSONValue {
        origin.route("/s", LoopbackRoute(headers: [("Cache-Control", "max-age=0")], body: "saved"))
        let url = origin.url("/s")
        #expect(try await roundTrip(batch, 1, url)["cache_status"] == .string("miss"))
        origin.route("/s", LoopbackRoute(rawResponse: ""))
        return try await roundTrip(batch, 2, url)
    }

    @Test("a private cache answers a dropped connection with the stale copy: cache_status offline, trace origin-unreachable")
    func privateServesStale() async throws {
        let says = "private cache, stale when the origin is unreachable;"
        try await withBatch(checkHello: { hello in #expect(config(hello).hasPrefix(says), "\(hello)") }) { batch, origin, _ in
            let reply = try await staleThenDropped(batch, origin)
            #expect(reply["cache_status"] == .string("offline"), "\(reply)")
            #expect(reply["body"] == .string("saved"))
            #expect(traceCodes(reply).contains("origin-unreachable"), "\(reply)")
        }
    }

    @Test("--shared answers it with the transport's error; --shared --stale-when-unreachable with the stale copy")
    func sharedIsOffUnlessAsked() async throws {
        try await withBatch(["--shared"], checkHello: { hello in #expect(config(hello).hasPrefix("shared cache, obeying CDN-Cache-Control;"), "\(hello)") }) { batch, origin, _ in
            let reply = try await staleThenDropped(batch, origin)
            guard case .string(let error)? = reply["error"] else {
                Issue.record("expected an error reply: \(reply)")
                return
            }
            #expect(error.hasPrefix("transport-failed:"), "\(error)")
        }
        let says = "shared cache, stale when the origin is unreachable, obeying CDN-Cache-Control;"
        try await withBatch(["--shared", "--stale-when-unreachable"], checkHello: { hello in #expect(config(hello).hasPrefix(says), "\(hello)") }) { batch, origin, _ in
            let reply = try await staleThenDropped(batch, origin)
            #expect(reply["cache_status"] == .string("offline"), "\(reply)")
        }
    }

    @Test("cache_mode no-cache serves a fresh immutable response without revalidating it; reload fetches it again (RFC 8246)")
    func immutableUnderFetchModes() async throws {
        try await withBatch { batch, origin, _ in
            origin.route("/i", LoopbackRoute(headers: [("Cache-Control", "max-age=600, immutable")], body: "v1", etag: "\"v1\""))
            let url = origin.url("/i")
            #expect(try await roundTrip(batch, 1, url)["cache_status"] == .string("miss"))
            let noCache = try await roundTrip(batch, 2, url, #","cache_mode":"no-cache""#)
            #expect(noCache["cache_status"] == .string("hit"), "\(noCache)")
            #expect(traceCodes(noCache).contains("immutable"), "\(noCache)")
            try batch.send(#"{"type":"request","id":3,"url":"\#(url)","headers":[["Cache-Control","max-age=0"]]}"#)
            let maxAgeZero = try await batch.nextMessage()
            #expect(maxAgeZero["cache_status"] == .string("hit"), "\(maxAgeZero)")
            #expect(origin.requestCount(for: "/i") == 1)
            let reload = try await roundTrip(batch, 4, url, #","cache_mode":"reload""#)
            #expect(reload["cache_status"] == .string("miss"), "\(reload)")
            #expect(origin.requestCount(for: "/i") == 2)
        }
    }

    @Test("Vary: Accept-Language lists equal as preferences, or negotiating to the stored variant, are hits")
    func negotiatedVary() async throws {
        try await withBatch { batch, origin, _ in
            origin.route("/lang", LoopbackRoute(
                headers: [("Cache-Control", "max-age=600"), ("Vary", "Accept-Language"), ("Content-Language", "fr")], body: "bonjour"
            ))
            let url = origin.url("/lang")
            func send(_ id: Int, _ languages: String) async throws -> JSONValue {
                try batch.send(#"{"type":"request","id":\#(id),"url":"\#(url)","headers":[["Accept-Language","\#(languages)"]]}"#)
                return try await batch.nextMessage()
            }
            var statuses: [JSONValue?] = []
            for (id, languages) in [(1, "fr, de;q=0.5"), (2, "DE;q=0.50 ,FR"), (3, "fr;q=1.0, en;q=0.2"), (4, "en, fr;q=0.5")] {
                statuses.append(try await send(id, languages)["cache_status"])
            }
            #expect(statuses == [.string("miss"), .string("hit"), .string("hit"), .string("miss")])
            #expect(origin.requestCount(for: "/lang") == 2)
        }
    }

    @Test("a POST answered with explicit freshness and Content-Location equal to its URL answers a later GET")
    func postThenGet() async throws {
        try await withBatch { batch, origin, _ in
            origin.route("/doc", LoopbackRoute(headers: [("Cache-Control", "max-age=600"), ("Content-Location", "/doc")], body: "posted"))
            let url = origin.url("/doc")
            try batch.send(#"{"type":"request","id":1,"method":"POST","url":"\#(url)","headers":[],"body":"new"}"#)
            let posted = try await batch.nextMessage()
            #expect(posted["cache_status"] == .string("bypass"), "\(posted)")
            #expect(traceCodes(posted).contains("content-location"), "\(posted)")
            let got = try await roundTrip(batch, 2, url)
            #expect(got["cache_status"] == .string("hit"), "\(got)")
            #expect(got["body"] == .string("posted"))
            #expect(origin.receivedRequests.map(\.method) == ["POST"])
        }
    }

    @Test("a QUERY is cached by its content: equivalent JSON is a hit, other content a miss, a GET of the URL never gets it")
    func queryByContent() async throws {
        try await withBatch { batch, origin, _ in
            origin.route("/search") { request in
                LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "\(request.method) \(String(decoding: request.body, as: UTF8.self))")
            }
            let url = origin.url("/search")
            func query(_ id: Int, _ body: String) async throws -> JSONValue {
                let escaped = body.replacingOccurrences(of: "\"", with: "\\\"")
                try batch.send(#"{"type":"request","id":\#(id),"method":"QUERY","url":"\#(url)","headers":[["Content-Type","application/json"]],"body":"\#(escaped)"}"#)
                return try await batch.nextMessage()
            }
            let first = try await query(1, #"{"q":"cats","n":2}"#)
            #expect(first["cache_status"] == .string("miss"), "\(first)")
            #expect(first["body"] == .string(#"QUERY {"q":"cats","n":2}"#))
            #expect(traceCodes(first).contains("query"), "\(first)")
            let equivalent = try await query(2, #"{ "n": 2, "q": "cats" }"#)
            #expect(equivalent["cache_status"] == .string("hit"), "\(equivalent)")
            #expect(equivalent["body"] == .string(#"QUERY {"q":"cats","n":2}"#))
            #expect(try await query(3, #"{"q":"dogs","n":2}"#)["cache_status"] == .string("miss"))
            let get = try await roundTrip(batch, 4, url)
            #expect(get["cache_status"] == .string("miss"), "\(get)")
            #expect(origin.receivedRequests.map(\.method) == ["QUERY", "QUERY", "GET"])
        }
    }

    @Test("--shared obeys CDN-Cache-Control over Cache-Control (and --targeted-cache-control a field of its own); a private cache does not")
    func targetedCacheControl() async throws {
        func twice(_ batch: BatchProcess, _ origin: LoopbackOrigin, _ path: String, _ fields: [(String, String)]) async throws -> [JSONValue?] {
            origin.route(path, LoopbackRoute(headers: fields, body: "b"))
            let first = try await roundTrip(batch, 1, origin.url(path))
            let second = try await roundTrip(batch, 2, origin.url(path))
            return [first["cache_status"], second["cache_status"]]
        }
        let overNoStore = [("Cache-Control", "no-store"), ("CDN-Cache-Control", "max-age=600")]
        try await withBatch(["--shared"]) { batch, origin, _ async throws in
            #expect(try await twice(batch, origin, "/t", overNoStore) == [.string("miss"), .string("hit")])
            let reply = try await roundTrip(batch, 3, origin.url("/t"))
            let forwarded = JSONValue.array([.string("CDN-Cache-Control"), .string("max-age=600")])
            #expect(reply["headers"].map { if case .array(let headers) = $0 { headers.contains(forwarded) } else { false } } == true, "stored and forwarded: \(reply)")
            let restrictive = [("Cache-Control", "max-age=600"), ("CDN-Cache-Control", "no-store")]
            #expect(try await twice(batch, origin, "/n", restrictive) == [.string("miss"), .string("miss")])
        }
        try await withBatch(["--shared", "--targeted-cache-control", "CacheChain-Cache-Control"]) { batch, origin, _ async throws in
            let own = [("Cache-Control", "no-store"), ("CDN-Cache-Control", "max-age=600"), ("CacheChain-Cache-Control", "no-store")]
            #expect(try await twice(batch, origin, "/own", own) == [.string("miss"), .string("miss")], "only the named field is obeyed")
        }
        try await withBatch { batch, origin, _ async throws in
            #expect(try await twice(batch, origin, "/p", overNoStore) == [.string("miss"), .string("miss")])
        }
    }

    @Test("a 103 Early Hints before the response is the reply's interim member; a hit has none")
    func interimResponses() async throws {
        try await withBatch { batch, origin, _ async throws in
            var route = LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "page")
            route.interimResponses = [(103, [("Link", "</style.css>; rel=preload")])]
            origin.route("/hints", route)
            let first = try await roundTrip(batch, 1, origin.url("/hints"))
            guard case .array(let interim)? = first["interim"], let hint = interim.first, interim.count == 1 else {
                Issue.record("expected one interim response: \(first)")
                return
            }
            #expect(hint["status"] == .integer(103))
            #expect(hint["status_text"] == .string("Early Hints"))
            #expect(hint["headers"] == .array([.array([.string("Link"), .string("</style.css>; rel=preload")])]))
            #expect(first["status"] == .integer(200))
            let second = try await roundTrip(batch, 2, origin.url("/hints"))
            #expect(second["cache_status"] == .string("hit"))
            #expect(second["interim"] == nil, "never stored: \(second)")
        }
    }

    @Test("an unknown transfer coding is read until the close, answered and stored without Transfer-Encoding")
    func unknownTransferCoding() async throws {
        try await withBatch(["--shared"]) { batch, origin, _ async throws in
            origin.route("/te", LoopbackRoute(rawResponse: "HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nTransfer-Encoding: gzip, foo\r\n\r\nuntil close"))
            let first = try await roundTrip(batch, 1, origin.url("/te"))
            #expect(first["status"] == .integer(200), "\(first)")
            #expect(first["body"] == .string("until close"))
            #expect("\(first["headers"] ?? .null)".lowercased().contains("transfer-encoding") == false, "\(first)")
            let second = try await roundTrip(batch, 2, origin.url("/te"))
            #expect(second["cache_status"] == .string("hit"), "\(second)")
            #expect(second["body"] == .string("until close"))
        }
    }
}
