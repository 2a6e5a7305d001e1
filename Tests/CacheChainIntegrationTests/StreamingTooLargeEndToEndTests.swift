import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A streamed body too large for the store is abandoned early (issue 31.2), through libcurl and a loopback
/// origin: as soon as its `Content-Length` or its running count exceeds what the store accepts, the transport
/// stops keeping it (what was spooled is deleted) while the caller's stream goes on to the end. Observed on the
/// spool files the process holds open while a lagging reader keeps the transfer paused.
@Suite("Streaming a body too large for the store: abandoned early, streamed whole", .tags(.integration))
struct StreamingTooLargeEndToEndTests {
    /// A memory store of 1 MiB (5 %: 52 428 bytes stored at most), a transport spooling past 16 KiB.
    struct Setup {
        let origin: LoopbackOrigin
        let directory = NSTemporaryDirectory() + "cachechain-too-large-\(UUID().uuidString)"
        let events = StreamingMissEndToEndTests.RecordedEvents()
        let storage = MemoryStorage(capacity: 1 << 20)
        let client: HTTPCacheClient
        static let storableLimit = 52_428
        /// The most bytes one libcurl write callback hands over (`CURL_MAX_WRITE_SIZE`).
        static let oneWrite = 16 << 10

        init() async throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            origin = try await LoopbackOrigin.start()
            let sink = CacheEventSink { [events] in events.append($0) }
            let transport = CurlTransport(configuration: .init(inMemoryBodyLimit: 16 << 10, spoolDirectory: directory + "/spool"))
            // libcurl's timeout covers the whole transfer, paused for the lagging reader included: room for a loaded machine.
            client = HTTPCacheClient(transport: transport, configuration: .init(storage: storage, events: sink, timeout: .seconds(600)))
        }

        func request(_ path: String) throws -> HTTPRequest { try HTTPRequest(url: origin.url(path)) }

        /// The bytes in this setup's spool files that the process holds open now (unnamed files, found through
        /// `/proc/self/fd`).
        var spooledBytes: Int {
            let prefix = directory + "/spool/"
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return descriptors.reduce(0) { total, descriptor in
                let link = "/proc/self/fd/" + descriptor
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link), target.hasPrefix(prefix)
                else { return total }
                var status = stat()
                return stat(link, &status) == 0 ? total + Int(status.st_size) : total
            }
        }

        func finish() async throws {
            try await client.shutdown()
            try await origin.shutdown()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Streams `path` with a reader that lags until 1 MiB waits in the buffer (libcurl is then paused, having
    /// handed over at least that much), records the spooled bytes at that moment, then reads to the end.
    static func streamLagging(_ setup: Setup, _ path: String) async throws -> (spooled: Int, count: Int, matches: Bool) {
        let bufferLimit = 1 << 20
        return try await setup.client.stream(setup.request(path), bufferLimit: bufferLimit) { response in
            try await waitUntil("the stream's buffer filled up") { response.body.highWaterMark >= bufferLimit }
            let spooled = setup.spooledBytes
            let read = try await StreamingMissEndToEndTests.readPattern(response.body)
            return (spooled, read.count, read.matches)
        }
    }

    @Test("a Content-Length over the store's limit: nothing is spooled, the stream completes, not-stored too-large")
    func announcedLengthOverTheLimit() async throws {
        let setup = try await Setup()
        let size = 2 << 20
        setup.origin.route("/announced", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: .generated(count: size)))

        let (spooled, count, matches) = try await Self.streamLagging(setup, "/announced")
        #expect(spooled == 0, "1 MiB had arrived; the spool should hold nothing of a body announced too large: \(spooled)")
        #expect(count == size && matches)
        #expect(try await setup.storage.entries(for: CacheKeyStrategy.standard.key(for: setup.request("/announced"))).isEmpty)
        #expect(setup.events.all.contains { $0.kind == .notStored && $0.reasons == ["too-large"] })
        try await setup.finish()
    }

    @Test("a chunked body whose running count passes the limit: the spool holds at most limit + one write, then nothing")
    func runningCountOverTheLimit() async throws {
        let setup = try await Setup()
        let size = 2 << 20
        setup.origin.route("/chunked", Self.chunkedResponse(size: size))

        let (spooled, count, matches) = try await Self.streamLagging(setup, "/chunked")
        #expect(spooled <= Setup.storableLimit + Setup.oneWrite, "1 MiB had arrived; spooled: \(spooled)")
        #expect(count == size && matches)
        #expect(try await setup.storage.entries(for: CacheKeyStrategy.standard.key(for: setup.request("/chunked"))).isEmpty)
        #expect(setup.events.all.contains { $0.kind == .notStored && $0.reasons == ["too-large"] })
        #expect(setup.spooledBytes == 0)
        try await setup.finish()
    }

    @Test("a request coalesced with a too-large stream fetches its own body instead of sharing the unkept one")
    func coalescedWaiterFetchesItsOwn() async throws {
        let setup = try await Setup()
        let gate = LoopbackGate()
        let size = 2 << 20
        setup.origin.route("/shared", StreamingMissEndToEndTests.pausedRoute(count: size, pauseAfter: 256 << 10, gate: gate))
        let request = try setup.request("/shared")

        async let leader = setup.client.stream(request) { try await StreamingMissEndToEndTests.readPattern($0.body) }
        try await waitUntil("the leader reached the origin") { setup.origin.requestCount(for: "/shared") == 1 }
        async let follower = setup.client.data(for: request)
        try await waitUntil("the second request joined the first") { setup.events.all.contains { $0.kind == .coalesced } }
        gate.open()
        let (leading, following) = try await (leader, follower)
        #expect(leading.count == size && leading.matches)
        #expect(following.body.count == size)
        #expect(try following.body.collect(upTo: size).withUnsafeBytes { LoopbackRoute.Body.isGeneratedPattern($0, at: 0) })
        #expect(setup.origin.requestCount(for: "/shared") == 2, "the follower fetched the body it could not share")
        try await setup.finish()
    }

    /// A raw HTTP/1.1 answer with a chunked body of the generated pattern (no `Content-Length`).
    static func chunkedResponse(size: Int) -> LoopbackRoute {
        var bytes = Array("HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n".utf8)
        var offset = 0
        while offset < size {
            let length = min(64 << 10, size - offset)
            bytes += Array((String(length, radix: 16) + "\r\n").utf8)
            bytes += (offset..<(offset + length)).map { LoopbackRoute.Body.generatedByte(at: $0) }
            bytes += Array("\r\n".utf8)
            offset += length
        }
        var route = LoopbackRoute()
        route.rawResponse = bytes + Array("0\r\n\r\n".utf8)
        return route
    }
}
