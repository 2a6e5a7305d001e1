import CCurl
import CacheChain
import CacheChainCurl
import CacheChainLoopback
import Foundation
import Synchronization

/// The streaming rows of the paired run (issue 31.2): time to first byte of a streamed miss of a large body
/// (`HTTPCacheClient.stream`, the default client over `CurlTransport`) next to a plain libcurl transfer's first
/// write callback on the same loopback origin, and next to `CurlTransport` streaming alone. The origin sends the
/// head and the first 64 KiB chunk at once. Each call stops reading after its first chunk, which aborts the
/// transfer on both sides (so each call opens a connection on both sides alike); a sample is the time from the
/// call to its first body bytes, not the abort after it.
func runPairedStreamingRows(plan: PairedPlan) async throws {
    let origin = try await LoopbackOrigin.start()
    defer { Task { try? await origin.shutdown() } }
    let size = 64 << 20
    origin.route("/stream", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: .generated(count: size)))
    let transport = CurlTransport()
    defer { Task { await transport.shutdown() } }
    let client = HTTPCacheClient(transport: transport, configuration: .init(storage: MemoryStorage(capacity: 256 << 20)))
    let url = origin.url("/stream")
    let request = try HTTPRequest(url: url)
    let firstWrite = try FirstWriteLibcurl(url: url)
    let context = InterceptorContext(storage: MemoryStorage(capacity: 1))

    printSection("Streamed miss of a 64 MiB body: time to first byte (paired rounds)")
    try await compareFirstByte(
        ("HTTPCacheClient.stream, first chunk (miss)", "plain libcurl, first write callback"), plan: plan, calls: 60
    ) {
        try await firstChunkDelay(client: client, request: request)
    } _: {
        try firstWrite.delayToFirstWrite()
    }
    try await compareFirstByte(
        ("HTTPCacheClient.stream, first chunk (miss)", "CurlTransport streaming alone, first chunk"), plan: plan, calls: 60
    ) {
        try await firstChunkDelay(client: client, request: request)
    } _: {
        try await firstChunkDelay(transport: transport, request: request, context: context)
    }
}

/// Like `comparePaired` for rows whose sample is a delay the call measures itself (here: until the first body
/// bytes): alternating rounds of `calls` calls after a warm-up; each round's figure is its median delay.
@discardableResult
func compareFirstByte(
    _ names: (subject: String, baseline: String),
    plan: PairedPlan,
    calls: Int,
    warmUp: Int = 10,
    _ subject: () async throws -> Duration,
    _ baseline: () async throws -> Duration
) async throws -> PairedRow {
    for _ in 0..<warmUp {
        _ = try await subject()
        _ = try await baseline()
    }
    let perRound = plan.calls(calls)
    var sides = (subject: PairedSide(name: names.subject), baseline: PairedSide(name: names.baseline))
    func round(_ side: inout PairedSide, _ body: () async throws -> Duration) async throws {
        let start = ResourceUse.now()
        var samples: [Double] = []
        for _ in 0..<perRound { samples.append(try await body().nanoseconds) }
        side.use.add(since: start, calls: perRound)
        side.roundFigures.append(median(samples))
    }
    for _ in 0..<plan.pairs {
        try await round(&sides.subject, subject)
        try await round(&sides.baseline, baseline)
    }
    let row = PairedRow(
        section: currentSection.withLock { $0 }, kind: .latency, subject: sides.subject, baseline: sides.baseline,
        target: nil, reportsResourceUse: true
    )
    printPaired(row)
    return row
}

/// The time from calling `stream` to holding the first chunk of a streamed miss; the call then stops reading.
private func firstChunkDelay(client: HTTPCacheClient, request: HTTPRequest) async throws -> Duration {
    let clock = ContinuousClock()
    let start = clock.now
    return try await client.stream(request) { response in
        var chunks = response.body.makeAsyncIterator()
        let first = try await chunks.next()
        let delay = clock.now - start
        guard response.cacheStatus == .miss, let first, !first.isEmpty else {
            throw BenchmarkError("expected a streamed miss, got \(response.cacheStatus) with \(first?.count ?? 0) bytes")
        }
        return delay
    }
}

/// The time from `CurlTransport.send(_:context:streamingTo:)` to the first chunk of its stream, read as
/// `HTTPCacheClient.stream` reads it but without the pipeline; the transfer is then abandoned.
private func firstChunkDelay(
    transport: CurlTransport,
    request: HTTPRequest,
    context: InterceptorContext
) async throws -> Duration {
    let clock = ContinuousClock()
    let start = clock.now
    let stream = ResponseBodyStream()
    return try await withThrowingTaskGroup(of: Void.self, returning: Duration.self) { group in
        group.addTask {
            do {
                stream.finish(.success(try await transport.send(PipelineRequest(head: request), context: context, streamingTo: stream)))
            } catch {
                stream.finish(.failure(error))
            }
        }
        defer { stream.abandon() }  // on a failure too: the transfer ends, and the group waits for it
        guard case .streaming = try await stream.start(), let first = try await stream.read(), !first.isEmpty else {
            throw BenchmarkError("expected the transport to stream the body")
        }
        let delay = clock.now - start
        stream.abandon()
        group.cancelAll()
        while (try? await group.next()) != nil {}
        return delay
    }
}

/// A plain libcurl transfer on the calling thread that stops at its first write callback: the time from
/// `curl_easy_perform` to the origin's first body bytes, what a C program streaming a download sees.
final class FirstWriteLibcurl: @unchecked Sendable {  // invariant: used by one benchmark loop at a time
    private let handle: BaselineEasyHandle
    private let clock = ContinuousClock()
    private var firstWrite: ContinuousClock.Instant?

    init(url: String) throws {
        handle = try BaselineEasyHandle(url: url)
        handle.onWrite = { [unowned self] piece in
            if !piece.isEmpty { firstWrite = clock.now }
            return 0  // stop: the rest of the body is not what this row measures
        }
    }

    /// One transfer, stopped at its first body bytes.
    /// - Returns: The time from the call to the first write callback.
    func delayToFirstWrite() throws -> Duration {
        firstWrite = nil
        let start = clock.now
        let (code, status) = handle.perform()
        guard code == CURLE_WRITE_ERROR, status == 200, let firstWrite else {
            throw BenchmarkError("plain libcurl transfer: code \(code.rawValue), status \(status), no body")
        }
        return firstWrite - start
    }
}
