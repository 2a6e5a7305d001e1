import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// Streaming a miss to the caller while it is stored (issue 31.2), through libcurl and a loopback origin: the
/// first chunk before the origin has sent the rest, 50 MiB with a bounded buffer and committed to disk,
/// cancellation and early stops leaving no entry, a body too large for the store abandoned while the stream
/// completes, coalesced waiters, and a disk hit read from its file in chunks.
@Suite("Streaming a miss: the body as it arrives, stored once complete", .tags(.integration))
struct StreamingMissEndToEndTests {
    struct Setup {
        let origin: LoopbackOrigin
        let directory = NSTemporaryDirectory() + "cachechain-streaming-\(UUID().uuidString)"
        let events = RecordedEvents()
        let storage: any CacheStorage
        let client: HTTPCacheClient

        /// Over disk (`diskCapacity`), or over memory of `memoryCapacity` bytes when given.
        /// `timeout` covers a whole transfer, the time it spends paused for a slow reader included.
        init(memoryCapacity: Int? = nil, diskCapacity: Int = 1 << 30, timeout: Duration? = nil) async throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            origin = try await LoopbackOrigin.start()
            let sink = CacheEventSink { [events] in events.append($0) }
            if let memoryCapacity {
                storage = MemoryStorage(capacity: memoryCapacity)
            } else {
                storage = try DiskStorage(configuration: .init(directory: directory + "/cache", capacity: diskCapacity))
            }
            let transport = CurlTransport(configuration: .init(inMemoryBodyLimit: 1 << 20, spoolDirectory: directory + "/spool"))
            client = HTTPCacheClient(transport: transport, configuration: .init(storage: storage, events: sink, timeout: timeout))
        }

        func request(_ path: String) throws -> HTTPRequest { try HTTPRequest(url: origin.url(path)) }

        func storedCount(_ path: String) async throws -> Int {
            try await storage.entries(for: CacheKeyStrategy.standard.key(for: request(path))).count
        }

        func finish() async throws {
            try await client.shutdown()
            try await origin.shutdown()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    final class RecordedEvents: Sendable {
        private let events = LockedValue<[CacheEvent]>([])
        func append(_ event: CacheEvent) { events.withLock { $0.append(event) } }
        var all: [CacheEvent] { events.withLock { $0 } }
    }

    /// Reads a body to its end, checking every byte against the origin's generated pattern.
    static func readPattern(_ body: HTTPCacheClient.StreamedResponse.Body, from start: Int = 0) async throws -> (count: Int, matches: Bool, chunks: Int) {
        var position = start
        var matches = true
        var chunks = 0
        for try await chunk in body {
            matches = matches && chunk.withUnsafeBytes { LoopbackRoute.Body.isGeneratedPattern($0, at: position) }
            position += chunk.count
            chunks += 1
        }
        return (position, matches, chunks)
    }

    static func pausedRoute(count: Int, pauseAfter offset: Int, gate: LoopbackGate) -> LoopbackRoute {
        var route = LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: .generated(count: count))
        route.bodyPauseOffset = offset
        route.bodyPauseGate = gate
        return route
    }

    /// Waits for `condition` while the origin holds the rest of a body behind `gate`; opens the gate when the
    /// wait fails, so that a transport that does not stream fails the test instead of hanging it.
    static func waitBeforeTheOriginFinishes(_ what: String, gate: LoopbackGate, _ condition: @escaping @Sendable () -> Bool) async throws {
        do {
            try await waitUntil(what) { condition() }
        } catch {
            gate.open()
            throw error
        }
    }

    @Test("the head and first chunk arrive while the origin still holds the rest; the whole body is then stored")
    func firstChunkBeforeTheOriginFinishes() async throws {
        let setup = try await Setup()
        let gate = LoopbackGate()
        setup.origin.route("/first", Self.pausedRoute(count: 4 << 20, pauseAfter: 256 << 10, gate: gate))
        let firstChunk = LockedValue<[UInt8]?>(nil)

        let reading = Task { [client = setup.client, request = try setup.request("/first")] in
            try await client.stream(request) { response in
                var iterator = response.body.makeAsyncIterator()
                let first = try await iterator.next() ?? []
                firstChunk.withLock { $0 = first }
                var position = first.count
                var matches = true
                while let chunk = try await iterator.next() {
                    matches = matches && chunk.withUnsafeBytes { LoopbackRoute.Body.isGeneratedPattern($0, at: position) }
                    position += chunk.count
                }
                return (response.cacheStatus, position, matches)
            }
        }
        try await Self.waitBeforeTheOriginFinishes("the first chunk, while the origin holds the rest", gate: gate) {
            firstChunk.withLock { $0 != nil }
        }
        let first = try #require(firstChunk.withLock { $0 })
        #expect(!first.isEmpty && first.count <= 256 << 10)
        #expect(first.withUnsafeBytes { LoopbackRoute.Body.isGeneratedPattern($0, at: 0) })
        gate.open()
        let (status, count, matches) = try await reading.value
        #expect(status == .miss)
        #expect(count == 4 << 20)
        #expect(matches)
        #expect(try await setup.storedCount("/first") == 1, "committed before the body sequence ended")
        let hit = try await setup.client.data(for: setup.request("/first"))
        #expect(hit.cacheStatus == .hit)
        #expect(hit.body.count == 4 << 20)
        #expect(setup.origin.requestCount(for: "/first") == 1)
        try await setup.finish()
    }

    @Test("50 MiB: a reader that lags pauses the transfer (the buffer never outgrows its limit), and the entry is committed to disk")
    func fiftyMiBWithBoundedMemory() async throws {
        // libcurl's timeout covers the whole transfer: give 50 MiB read by a debug build on a loaded machine room.
        let setup = try await Setup(timeout: .seconds(600))
        let size = 50 << 20
        setup.origin.route("/big", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: .generated(count: size)))
        let bufferLimit = 256 << 10

        let (count, matches, highWaterMark) = try await setup.client.stream(setup.request("/big"), bufferLimit: bufferLimit) { response in
            // Lag: read nothing until the buffer is full, so the transfer must pause.
            try await waitUntil("the stream's buffer filled up") { response.body.highWaterMark >= bufferLimit }
            let read = try await Self.readPattern(response.body)
            return (read.count, read.matches, response.body.highWaterMark)
        }
        #expect(count == size)
        #expect(matches)
        // One libcurl write (at most CURL_MAX_WRITE_SIZE, 16 KiB) may land on a buffer just under its limit.
        #expect(highWaterMark <= bufferLimit + 16 << 10, "at most \(bufferLimit) bytes plus one write waited: \(highWaterMark)")
        #expect(try await setup.storedCount("/big") == 1)
        let hit = try await setup.client.data(for: setup.request("/big"))
        #expect(hit.cacheStatus == .hit)
        #expect(hit.body.count == size)
        #expect(hit.body.file != nil, "the stored body is read from its file")
        try await setup.finish()
    }

    @Test("a reader that stops after the first chunk: the transfer is aborted and nothing is stored")
    func stoppingEarlyLeavesNoEntry() async throws {
        let setup = try await Setup()
        let gate = LoopbackGate()
        setup.origin.route("/stop", Self.pausedRoute(count: 8 << 20, pauseAfter: 1 << 20, gate: gate))
        let returned = LockedValue<Int?>(nil)

        let reading = Task { [client = setup.client, request = try setup.request("/stop")] in
            let first = try await client.stream(request) { response in
                var iterator = response.body.makeAsyncIterator()
                return try await iterator.next()?.count ?? 0
            }
            returned.withLock { $0 = first }
        }
        try await Self.waitBeforeTheOriginFinishes("stream returned after one chunk, the origin still holding the rest", gate: gate) {
            returned.withLock { $0 != nil }
        }
        try await reading.value
        #expect(returned.withLock { $0 } ?? 0 > 0)
        #expect(try await setup.storedCount("/stop") == 0)
        gate.open()
        let again = try await setup.client.data(for: setup.request("/stop"))
        #expect(again.cacheStatus == .miss, "nothing was stored by the abandoned stream")
        #expect(again.body.count == 8 << 20)
        try await setup.finish()
    }

    @Test("cancelling the reading task mid-stream: the read throws, the transfer ends and nothing is stored")
    func cancellationLeavesNoEntry() async throws {
        let setup = try await Setup()
        let gate = LoopbackGate()
        setup.origin.route("/cancel", Self.pausedRoute(count: 8 << 20, pauseAfter: 1 << 20, gate: gate))
        let received = LockedValue(0)

        let reader = Task { [client = setup.client, request = try setup.request("/cancel")] in
            try await client.stream(request) { response in
                for try await chunk in response.body { received.withLock { $0 += chunk.count } }
            }
        }
        try await Self.waitBeforeTheOriginFinishes("the first chunk was read", gate: gate) { received.withLock { $0 } > 0 }
        reader.cancel()
        await #expect(throws: (any Error).self) { try await reader.value }
        #expect(!gate.isOpen)
        #expect(received.withLock { $0 } < 8 << 20)
        #expect(try await setup.storedCount("/cancel") == 0)
        gate.open()
        try await setup.finish()
    }

    @Test("a body too large for the store: the stream completes, nothing is stored, a not-stored event says too-large")
    func tooLargeIsAbandonedWhileTheStreamCompletes() async throws {
        let setup = try await Setup(memoryCapacity: 1 << 20)   // 5 %: 52 KiB at most
        let size = 3 << 20
        setup.origin.route("/large", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: .generated(count: size)))

        let read = try await setup.client.stream(setup.request("/large")) { try await Self.readPattern($0.body) }
        #expect(read.count == size)
        #expect(read.matches)
        #expect(try await setup.storedCount("/large") == 0)
        #expect(setup.events.all.contains { $0.kind == .notStored && $0.reasons.contains("too-large") })
        try await setup.finish()
    }

    @Test("coalesced: a second reader waiting on the first one's transfer gets the full body; the origin is asked once")
    func coalescedWaitersGetTheFullBody() async throws {
        let setup = try await Setup()
        let gate = LoopbackGate()
        let size = 3 << 20
        setup.origin.route("/shared", Self.pausedRoute(count: size, pauseAfter: 512 << 10, gate: gate))
        let request = try setup.request("/shared")

        async let leader = setup.client.stream(request) { try await Self.readPattern($0.body) }
        try await waitUntil("the leader reached the origin") { setup.origin.requestCount(for: "/shared") == 1 }
        async let follower = setup.client.stream(request) { response in
            (response.cacheStatus, try await Self.readPattern(response.body))
        }
        try await waitUntil("the second request joined the first") { setup.events.all.contains { $0.kind == .coalesced } }
        gate.open()
        let (leading, following) = try await (leader, follower)
        #expect(leading.count == size && leading.matches)
        #expect(following.1.count == size && following.1.matches)
        #expect(setup.origin.requestCount(for: "/shared") == 1)
        try await setup.finish()
    }

    @Test("a disk hit is streamed from its file in chunks")
    func diskHitIsChunked() async throws {
        let setup = try await Setup()
        let size = 2 << 20
        setup.origin.route("/hit", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: .generated(count: size)))
        _ = try await setup.client.data(for: setup.request("/hit"))

        let (status, read) = try await setup.client.stream(setup.request("/hit")) { ($0.cacheStatus, try await Self.readPattern($0.body)) }
        #expect(status == .hit)
        #expect(read.count == size && read.matches)
        #expect(read.chunks == size / PipelineBody.defaultChunkSize)
        #expect(setup.origin.requestCount(for: "/hit") == 1)
        try await setup.finish()
    }

    @Test("a transport without streaming (the buffering default): the finished response, whole")
    func bufferingDefault() async throws {
        let transport = ScriptedTransport()
        transport.route("/x", status: 200, fields: [("Cache-Control", "max-age=60")], body: "whole")
        let client = HTTPCacheClient(transport: transport)
        let text = try await client.stream(HTTPRequest(url: "http://example.com/x")) { response in
            var bytes: [UInt8] = []
            for try await chunk in response.body { bytes += chunk }
            return String(decoding: bytes, as: UTF8.self)
        }
        #expect(text == "whole")
    }
}
