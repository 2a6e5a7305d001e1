import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// Range requests answered from the cache (issue 31.1) through libcurl and a loopback origin: 206 with
/// `Content-Range` on byte boundaries, 416, `If-Range`, what goes to the origin, and a 206 from the origin
/// never served as the whole response (stored parts: `PartialContentEndToEndTests`).
@Suite("Range requests from the cache end to end", .tags(.integration))
struct RangeRequestEndToEndTests {
    static let body = (0..<100).map { UInt8($0) }
    static let lastModified = "Sun, 06 Nov 1994 08:49:37 GMT"

    func withClient(storage: (any CacheStorage)? = nil, _ body: (HTTPCacheClient, LoopbackOrigin) async throws -> Void) async throws {
        let origin = try await LoopbackOrigin.start()
        let client = HTTPCacheClient(transport: CurlTransport(), configuration: .init(storage: storage))
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

    func storedRoute(body: [UInt8] = Self.body) -> LoopbackRoute {
        LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: .bytes(body), etag: "\"v1\"", lastModified: Self.lastModified)
    }

    @Test(
        "a stored fresh 200 answers single ranges on byte boundaries with 206 and Content-Range, or 416",
        arguments: [
            ("bytes=0-0", 206, "bytes 0-0/100", 0..<1),
            ("bytes=99-99", 206, "bytes 99-99/100", 99..<100),
            ("bytes=98-200", 206, "bytes 98-99/100", 98..<100),
            ("bytes=0-", 206, "bytes 0-99/100", 0..<100),
            ("bytes=42-", 206, "bytes 42-99/100", 42..<100),
            ("bytes=-1", 206, "bytes 99-99/100", 99..<100),
            ("bytes=-100", 206, "bytes 0-99/100", 0..<100),
            ("bytes=-500", 206, "bytes 0-99/100", 0..<100),
            ("BYTES=10-19", 206, "bytes 10-19/100", 10..<20),
            ("bytes=100-", 416, "bytes */100", 0..<0),
            ("bytes=100-150", 416, "bytes */100", 0..<0),
            ("bytes=-0", 416, "bytes */100", 0..<0),
        ] as [(String, Int, String, Range<Int>)]
    )
    func byteBoundaries(range: String, status: Int, contentRange: String, positions: Range<Int>) async throws {
        try await withClient { client, origin in
            origin.route("/r", storedRoute())
            #expect(try await get(client, origin, "/r").cacheStatus == .miss)
            let part = try await get(client, origin, "/r", [(.range, range)])
            #expect(part.head.status.code == status)
            #expect(part.cacheStatus == .hit)
            #expect(part.head.headerFields[.contentRange] == contentRange)
            #expect(part.head.headerFields[.contentLength] == "\(positions.count)")
            #expect(try part.body.collect() == Array(Self.body[positions]))
            #expect(part.trace.contains { $0.code == .range })
            #expect(origin.requestCount(for: "/r") == 1, "the range came from the cache")
        }
    }

    @Test("If-Range: a strong ETag match or the exact strong Last-Modified gives the range, anything else the whole 200")
    func ifRange() async throws {
        try await withClient { client, origin in
            origin.route("/r", storedRoute())
            _ = try await get(client, origin, "/r")
            for (validator, expected) in [
                ("\"v1\"", 206), ("W/\"v1\"", 200), ("\"v2\"", 200),
                (Self.lastModified, 206), ("Sun, 06 Nov 1994 08:49:38 GMT", 200), ("not a date", 200),
            ] {
                let response = try await get(client, origin, "/r", [(.range, "bytes=0-9"), (.ifRange, validator)])
                #expect(response.head.status.code == expected, "If-Range: \(validator)")
                #expect(response.cacheStatus == .hit)
                #expect(try response.body.collect().count == (expected == 206 ? 10 : 100))
            }
            #expect(origin.requestCount(for: "/r") == 1)
        }
    }

    @Test("several ranges, another unit, nothing stored or a stale entry: the request goes to the origin as it is")
    func forwarded() async throws {
        try await withClient { client, origin in
            origin.route("/r", storedRoute())
            origin.route("/stale", LoopbackRoute(headers: [("Cache-Control", "max-age=0")], body: .bytes(Self.body)))
            let cold = try await get(client, origin, "/r", [(.range, "bytes=0-9")])
            #expect(cold.head.status.code == 200, "the loopback origin ignores Range and sends the whole body")
            #expect(cold.cacheStatus == .miss)
            #expect(cold.trace.first?.code == .range)
            #expect(origin.requestCount(for: "/r") == 1)
            for range in ["bytes=0-1,5-6", "items=0-5", "bytes=9-2", "bytes=x-"] {
                let response = try await get(client, origin, "/r", [(.range, range)])
                #expect(response.head.headerFields[.contentRange] == nil, "\(range)")
                #expect(response.trace.first?.code == .range, "\(range)")
            }
            #expect(origin.requestCount(for: "/r") == 5, "each of the four went to the origin")
            _ = try await get(client, origin, "/stale")
            let stale = try await get(client, origin, "/stale", [(.range, "bytes=0-9")])
            #expect(stale.head.status.code == 200)
            #expect(origin.requestCount(for: "/stale") == 2)
            #expect(origin.receivedRequests.last?.header("Range") == "bytes=0-9", "sent as it is")
        }
    }

    @Test("a 206 from the origin is never served as the whole response")
    func originPartialNotStored() async throws {
        try await withClient { client, origin in
            origin.route("/p") { request in
                guard let range = request.header("Range"), range == "bytes=0-9" else { return storedRoute() }
                var route = LoopbackRoute(status: 206, headers: [("Cache-Control", "max-age=600"), ("Content-Range", "bytes 0-9/100")], body: .bytes(Array(Self.body[0..<10])))
                route.etag = "\"v1\""
                return route
            }
            let partial = try await get(client, origin, "/p", [(.range, "bytes=0-9")])
            #expect(partial.head.status.code == 206)
            #expect(partial.cacheStatus == .miss)
            let whole = try await get(client, origin, "/p")
            #expect(whole.head.status.code == 200)
            #expect(whole.cacheStatus == .miss, "the 206 was not stored")
            #expect(try whole.body.collect() == Self.body)
            let fromCache = try await get(client, origin, "/p", [(.range, "bytes=0-9")])
            #expect(fromCache.head.status.code == 206)
            #expect(fromCache.cacheStatus == .hit)
            #expect(origin.requestCount(for: "/p") == 2)
        }
    }

    @Test("an empty stored body: a range from the first byte is 416, a suffix gives the whole (empty) 200")
    func emptyBody() async throws {
        try await withClient { client, origin in
            origin.route("/e", storedRoute(body: []))
            _ = try await get(client, origin, "/e")
            let first = try await get(client, origin, "/e", [(.range, "bytes=0-")])
            #expect(first.head.status.code == 416)
            #expect(first.head.headerFields[.contentRange] == "bytes */0")
            let suffix = try await get(client, origin, "/e", [(.range, "bytes=-5")])
            #expect(suffix.head.status.code == 200)
            #expect(suffix.cacheStatus == .hit)
            #expect(origin.requestCount(for: "/e") == 1)
        }
    }

    @Test("a body stored in a disk entry file is sliced from the file: the right bytes at both ends")
    func fileBackedBody() async throws {
        let directory = NSTemporaryDirectory() + "cachechain-ranges-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let disk = try DiskStorage(configuration: .init(directory: directory, capacity: 64 << 20, inMemoryBodyLimit: 0))
        let size = 1 << 20
        try await withClient(storage: disk) { client, origin in
            origin.route("/big", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: .generated(count: size)))
            _ = try await get(client, origin, "/big")
            for (range, start, count) in [("bytes=0-0", 0, 1), ("bytes=-3", size - 3, 3), ("bytes=500000-500999", 500_000, 1_000)] {
                let part = try await get(client, origin, "/big", [(.range, range)])
                #expect(part.head.status.code == 206)
                #expect(part.body.file != nil, "read from the entry file, not loaded")
                #expect(try part.body.collect() == (start..<(start + count)).map(LoopbackRoute.Body.generatedByte(at:)))
            }
            #expect(origin.requestCount(for: "/big") == 1)
        }
    }

    @Test("off in the configuration: the stored whole 200 answers as before")
    func disabled() async throws {
        let origin = try await LoopbackOrigin.start()
        let client = HTTPCacheClient(transport: CurlTransport(), configuration: .init(isRangeServingEnabled: false))
        origin.route("/r", storedRoute())
        _ = try await get(client, origin, "/r")
        let response = try await get(client, origin, "/r", [(.range, "bytes=0-9")])
        #expect(response.head.status.code == 200)
        #expect(response.cacheStatus == .hit)
        try await client.shutdown()
        try await origin.shutdown()
    }
}
