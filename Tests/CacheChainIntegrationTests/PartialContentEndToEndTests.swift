import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// Stored parts (issue 45.3, RFC 9111 §3.3–3.4) through libcurl and a loopback origin that answers ranges, in a
/// private and a shared cache: a `206` kept and its sub-ranges served, a prefix completed with `bytes=N-` and
/// `If-Range`, weak validators and unknown lengths not kept, a changed representation never mixed.
@Suite("Partial content stored and combined end to end", .tags(.integration))
struct PartialContentEndToEndTests {
    static let body = (0..<100).map { UInt8($0) }
    static let changed = (0..<100).map { UInt8(200 - $0) }
    static let modes: [CacheMode] = [.privateCache, .sharedCache]

    func withClient(_ mode: CacheMode, _ body: (HTTPCacheClient, LoopbackOrigin) async throws -> Void) async throws {
        let origin = try await LoopbackOrigin.start()
        let configuration = HTTPCacheClient.Configuration(storage: MemoryStorage(capacity: 8 << 20), policy: CachePolicyConfiguration(mode: mode))
        let client = HTTPCacheClient(transport: CurlTransport(), configuration: configuration)
        do {
            try await body(client, origin)
        } catch {
            try? await client.shutdown()
            try? await origin.shutdown()
            throw error
        }
        try await client.shutdown()
        try await origin.shutdown()
    }

    func get(_ client: HTTPCacheClient, _ origin: LoopbackOrigin, _ path: String, _ fields: [(HTTPField.Name, String)] = []) async throws -> PipelineResponse {
        var request = try HTTPRequest(url: origin.url(path))
        for (name, value) in fields { request.headerFields[name] = value }
        return try await client.data(for: request)
    }

    /// A route that answers ranges of `body` with `etag`.
    func rangeRoute(_ body: [UInt8] = Self.body, etag: String = "\"v1\"") -> LoopbackRoute {
        var route = LoopbackRoute(headers: [("Cache-Control", "public, max-age=600")], body: .bytes(body), etag: etag)
        route.servesRanges = true
        return route
    }

    /// The `Range` fields the origin received, in order (`-` for none).
    func ranges(_ origin: LoopbackOrigin) -> [String] { origin.receivedRequests.map { $0.header("Range") ?? "-" } }

    @Test("a stored 206 answers a covered sub-range as a hit with the right bytes and Content-Range", arguments: Self.modes)
    func storedPartServesSubRange(_ mode: CacheMode) async throws {
        try await withClient(mode) { client, origin in
            origin.route("/r", rangeRoute())
            let first = try await get(client, origin, "/r", [(.range, "bytes=10-59")])
            #expect(first.head.status.code == 206)
            #expect(first.cacheStatus == .miss)
            #expect(first.trace.contains { $0.code == .storable }, "\(first.trace)")
            let part = try await get(client, origin, "/r", [(.range, "bytes=20-29")])
            #expect(part.head.status.code == 206)
            #expect(part.cacheStatus == .hit, "\(part.trace)")
            #expect(part.head.headerFields[.contentRange] == "bytes 20-29/100")
            #expect(part.head.headerFields[.contentLength] == "10")
            #expect(try part.body.collect() == Array(Self.body[20..<30]))
            let whole = try await get(client, origin, "/r")
            #expect(whole.head.status.code == 200, "a request without Range is not served from a part")
            #expect(whole.cacheStatus == .miss)
            #expect(ranges(origin) == ["bytes=10-59", "-"])
        }
    }

    @Test("an open range stored answers suffix and open ranges inside it", arguments: Self.modes)
    func suffixAndOpen(_ mode: CacheMode) async throws {
        try await withClient(mode) { client, origin in
            origin.route("/r", rangeRoute())
            _ = try await get(client, origin, "/r", [(.range, "bytes=50-")])
            for (range, contentRange, positions) in [("bytes=-10", "bytes 90-99/100", 90..<100), ("bytes=60-", "bytes 60-99/100", 60..<100), ("bytes=50-50", "bytes 50-50/100", 50..<51)] {
                let part = try await get(client, origin, "/r", [(.range, range)])
                #expect(part.cacheStatus == .hit, "\(range): \(part.trace)")
                #expect(part.head.headerFields[.contentRange] == contentRange)
                #expect(try part.body.collect() == Array(Self.body[positions]))
            }
            #expect(origin.requestCount(for: "/r") == 1)
        }
    }

    @Test("a stored prefix and a larger range: the origin gets bytes=N- with If-Range, the parts combine and complete the entry", arguments: Self.modes)
    func prefixContinued(_ mode: CacheMode) async throws {
        try await withClient(mode) { client, origin in
            origin.route("/r", rangeRoute())
            _ = try await get(client, origin, "/r", [(.range, "bytes=0-39")])
            let larger = try await get(client, origin, "/r", [(.range, "bytes=20-79")])
            #expect(larger.head.status.code == 206)
            #expect(larger.head.headerFields[.contentRange] == "bytes 20-79/100")
            #expect(try larger.body.collect() == Array(Self.body[20..<80]))
            #expect(ranges(origin) == ["bytes=0-39", "bytes=40-"])
            #expect(origin.receivedRequests.last?.header("If-Range") == "\"v1\"")
            let whole = try await get(client, origin, "/r")
            #expect(whole.head.status.code == 200)
            #expect(whole.cacheStatus == .hit, "the parts made the whole: \(whole.trace)")
            #expect(try whole.body.collect() == Self.body)
            #expect(whole.head.headerFields[.contentRange] == nil)
            #expect(origin.requestCount(for: "/r") == 2)
        }
    }

    @Test(
        "a weak ETag, an unknown complete length or a multipart answer is not stored",
        arguments: Self.modes, [("W/\"v1\"", "bytes 0-9/100", "text/plain"), ("\"v1\"", "bytes 0-9/*", "text/plain"), ("\"v1\"", nil, "multipart/byteranges; boundary=B")] as [(String, String?, String)]
    )
    func notStored(_ mode: CacheMode, answer: (etag: String, contentRange: String?, type: String)) async throws {
        try await withClient(mode) { client, origin in
            var headers = [("Cache-Control", "public, max-age=600"), ("Content-Type", answer.type)]
            if let contentRange = answer.contentRange { headers.append(("Content-Range", contentRange)) }
            origin.route("/w", LoopbackRoute(status: 206, headers: headers, body: .bytes(Array(Self.body[0..<10])), etag: answer.etag))
            for _ in 0..<2 {
                let response = try await get(client, origin, "/w", [(.range, "bytes=0-9")])
                #expect(response.head.status.code == 206)
                #expect(response.cacheStatus == .miss, "\(response.trace)")
            }
            #expect(origin.requestCount(for: "/w") == 2)
        }
    }

    @Test("a weak ETag: the prefix is not stored, so nothing is combined", arguments: Self.modes)
    func weakNotCombined(_ mode: CacheMode) async throws {
        try await withClient(mode) { client, origin in
            origin.route("/r", rangeRoute(etag: "W/\"v1\""))
            _ = try await get(client, origin, "/r", [(.range, "bytes=0-39")])
            let larger = try await get(client, origin, "/r", [(.range, "bytes=0-79")])
            #expect(try larger.body.collect() == Array(Self.body[0..<80]))
            #expect(ranges(origin) == ["bytes=0-39", "bytes=0-79"], "no continuation")
        }
    }

    @Test("a changed representation on the continuation: its 200 replaces the part, never mixed bytes", arguments: Self.modes)
    func changedValidatorGivesWhole(_ mode: CacheMode) async throws {
        try await withClient(mode) { client, origin in
            origin.route("/r", rangeRoute())
            _ = try await get(client, origin, "/r", [(.range, "bytes=0-39")])
            origin.route("/r", rangeRoute(Self.changed, etag: "\"v2\""))
            let answer = try await get(client, origin, "/r", [(.range, "bytes=0-79")])
            #expect(answer.head.status.code == 200, "If-Range \"v1\" no longer matches: the whole new representation")
            #expect(try answer.body.collect() == Self.changed)
            let whole = try await get(client, origin, "/r")
            #expect(whole.cacheStatus == .hit)
            #expect(try whole.body.collect() == Self.changed)
            let part = try await get(client, origin, "/r", [(.range, "bytes=0-9")])
            #expect(try part.body.collect() == Array(Self.changed[0..<10]))
            #expect(ranges(origin) == ["bytes=0-39", "bytes=40-"])
        }
    }

    @Test("an origin that ignores If-Range and sends a 206 of another representation: it goes up as it is and replaces the part", arguments: Self.modes)
    func changedValidatorPartReplaced(_ mode: CacheMode) async throws {
        try await withClient(mode) { client, origin in
            origin.route("/r") { request in
                let (bytes, etag, first, last): ([UInt8], String, Int, Int) = switch request.header("Range") {
                case "bytes=0-39": (Self.body, "\"v1\"", 0, 39)
                case "bytes=40-": (Self.changed, "\"v2\"", 40, 99)
                default: (Self.changed, "\"v2\"", 0, 79)
                }
                return LoopbackRoute(
                    status: 206, headers: [("Cache-Control", "public, max-age=600"), ("Content-Range", "bytes \(first)-\(last)/100")],
                    body: .bytes(Array(bytes[first...last])), etag: etag
                )
            }
            _ = try await get(client, origin, "/r", [(.range, "bytes=0-39")])
            let answer = try await get(client, origin, "/r", [(.range, "bytes=0-79")])
            #expect(answer.head.status.code == 206)
            #expect(answer.head.headerFields[.contentRange] == "bytes 40-99/100", "the origin's 206 as it is: no bytes of \"v1\"")
            #expect(try answer.body.collect() == Array(Self.changed[40..<100]))
            #expect(ranges(origin) == ["bytes=0-39", "bytes=40-"])
            let again = try await get(client, origin, "/r", [(.range, "bytes=50-59")])
            #expect(again.cacheStatus == .hit, "the new part replaced the old one")
            #expect(try again.body.collect() == Array(Self.changed[50..<60]))
            let old = try await get(client, origin, "/r", [(.range, "bytes=0-9")])
            #expect(old.cacheStatus == .miss, "the \"v1\" part is gone")
        }
    }

    @Test("If-Range on the caller's request that does not match the stored part: the whole 200 from the origin", arguments: Self.modes)
    func ifRangeMismatch(_ mode: CacheMode) async throws {
        try await withClient(mode) { client, origin in
            origin.route("/r", rangeRoute())
            _ = try await get(client, origin, "/r", [(.range, "bytes=0-39")])
            let matching = try await get(client, origin, "/r", [(.range, "bytes=0-9"), (.ifRange, "\"v1\"")])
            #expect(matching.cacheStatus == .hit)
            #expect(matching.head.status.code == 206)
            let other = try await get(client, origin, "/r", [(.range, "bytes=0-9"), (.ifRange, "\"v0\"")])
            #expect(other.head.status.code == 200)
            #expect(try other.body.collect() == Self.body)
            #expect(ranges(origin) == ["bytes=0-39", "-"])
        }
    }
}

extension PartialContentEndToEndTests {
    @Test("an unsafe request to the URI removes its stored part with its stored 200 (RFC 9111 §4.4)", arguments: Self.modes)
    func unsafeInvalidatesPart(_ mode: CacheMode) async throws {
        try await withClient(mode) { client, origin in
            origin.route("/r", rangeRoute())
            _ = try await get(client, origin, "/r", [(.range, "bytes=0-39")])
            var post = try HTTPRequest(url: origin.url("/r"))
            post.method = .post
            _ = try await client.data(for: post)
            let after = try await get(client, origin, "/r", [(.range, "bytes=0-9")])
            #expect(after.cacheStatus == .miss, "\(after.trace)")
            #expect(ranges(origin) == ["bytes=0-39", "-", "bytes=0-9"])
        }
    }
}
