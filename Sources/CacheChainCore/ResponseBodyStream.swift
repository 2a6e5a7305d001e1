public import CacheChainPolicy
public import HTTPTypes

/// Hands a response body from a transport to a caller while it arrives, through a bounded buffer.
///
/// `HTTPCacheClient.stream(_:body:bufferLimit:_:)` creates one per request and puts it in the request's context; the
/// pipeline hands it to the transport (``HTTPTransport/send(_:context:streamingTo:)``). The transport
/// ``claim(_:)``s it with the head of the response the caller will see — a final `2xx` to a request that has a
/// body, never a `304` or an error status, which the cache interceptors may replace — and then ``write(_:)``s
/// the body's bytes as they arrive, while still building the whole response for the interceptors inside the
/// cache (which store it only once it is complete). The caller reads the bytes as
/// `HTTPCacheClient.StreamedResponse.Body`.
///
/// Memory stays bounded: at most ``bufferLimit`` bytes (plus one chunk) wait in the buffer; a transport
/// writing into a full buffer waits (``write(_:)`` suspends; `CurlTransport` pauses the transfer with
/// `CURL_WRITEFUNC_PAUSE`) until the caller has read. A caller that stops reading abandons the stream:
/// writes then fail, and the request is cancelled.
///
/// Only the first claim wins, and only while the request is running: a background revalidation that copied
/// the context later finds the stream closed and keeps its response to itself.
///
/// The head the caller sees is the one claimed with the changes interceptors outside the transport would make
/// on the way back, registered on the way in with ``amendStreamedHead(_:)`` (`CacheStatusInterceptor` adds its
/// `Cache-Status` so); the caller's trace is the decisions recorded on the way in until the pipeline ends, then
/// the pipeline's whole trace.
public final class ResponseBodyStream: Sendable {
    /// How a request's response starts for the caller.
    package enum Start: Sendable {
        /// The transport claimed the stream: this head, then the bytes written.
        case streaming(HTTPResponse)
        /// The pipeline finished without a claim (a hit, a `304`, an error status, a buffering transport).
        case complete(PipelineResponse)
    }

    /// What happened to bytes offered with ``offer(_:onWritable:)``.
    package enum Offer: Sendable, Equatable {
        /// Buffered.
        case accepted
        /// Not taken: the buffer is full; `onWritable` runs once the caller has read (or abandoned).
        case full
        /// Not taken: the caller stopped reading.
        case abandoned
    }

    /// The default ``bufferLimit``: 1 MiB.
    public static let defaultBufferLimit = 1 << 20

    /// The most bytes waiting for the caller before writes wait.
    public let bufferLimit: Int
    private let state = LockedValue(State())

    /// Creates an open, unclaimed stream.
    /// - Parameter bufferLimit: The most bytes buffered before writers wait; 1 MiB by default.
    public init(bufferLimit: Int = ResponseBodyStream.defaultBufferLimit) {
        precondition(bufferLimit > 0, "the buffer limit must be positive")
        self.bufferLimit = bufferLimit
    }

    /// Claims the stream for a response: the caller will see this head and the bytes written next.
    ///
    /// Call it once the final head is known and before the first byte of the body; a transport that does not
    /// stream never calls it (the caller then gets the finished response).
    /// - Parameter head: The response head as the caller should see it (framing fields describing the decoded
    ///   body: no `Transfer-Encoding`, no `Content-Encoding` the transport removed).
    /// - Returns: `true` when this response is the caller's: write its body with ``write(_:)``; `false` when
    ///   the stream is taken or closed: build the response without writing to the stream.
    public func claim(_ head: HTTPResponse) -> Bool {
        let (claimed, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Start, any Error>?) in
            guard state.start == nil, !state.isClosedForClaims else { return (false, nil) }
            state.start = .success(.streaming(head))
            defer { state.startWaiter = nil }
            return (true, state.startWaiter)
        }
        waiter?.resume(returning: .streaming(head))
        return claimed
    }

    /// Writes the next bytes of a claimed response's body, waiting while the buffer is full.
    /// - Parameter bytes: The bytes, in order.
    /// - Throws: `CancellationError` when the caller stopped reading (abort the transfer).
    public func write(_ bytes: [UInt8]) async throws {
        while true {
            let outcome: Offer = await withCheckedContinuation { continuation in
                let offered = bytes.withUnsafeBytes { self.offer($0, onWritable: { continuation.resume(returning: .full) }) }
                if offered != .full { continuation.resume(returning: offered) }
            }
            switch outcome {
            case .accepted: return
            case .abandoned: throw CancellationError()
            case .full: continue  // the caller read (or left): offer again
            }
        }
    }

    /// Offers bytes without waiting: for transports whose callbacks must not block (libcurl's write callback).
    /// - Parameters:
    ///   - bytes: The bytes; copied when accepted.
    ///   - onWritable: Runs once, on the reader's thread, when a ``Offer/full`` buffer has room again or the
    ///     caller abandoned the stream.
    /// - Returns: Whether the bytes were taken.
    package func offer(_ bytes: UnsafeRawBufferPointer, onWritable: @escaping @Sendable () -> Void) -> Offer {
        let (offer, reader) = state.withLock { state -> (Offer, CheckedContinuation<[UInt8]?, any Error>?) in
            if state.isAbandoned { return (.abandoned, nil) }
            if state.buffered >= bufferLimit {
                state.onWritable = onWritable
                return (.full, nil)
            }
            guard let reader = state.reader else {
                state.chunks.append(Array(bytes))
                state.buffered += bytes.count
                state.streamedCount += bytes.count
                state.highWaterMark = max(state.highWaterMark, state.buffered)
                return (.accepted, nil)
            }
            state.reader = nil
            state.streamedCount += bytes.count
            state.highWaterMark = max(state.highWaterMark, bytes.count)
            return (.accepted, reader)
        }
        reader?.resume(returning: Array(bytes))
        return offer
    }

    /// Ends the request: a claimed stream's body ends after the buffered bytes (or with `error`); an unclaimed
    /// stream starts with the finished response (or fails). Called by the client when the pipeline returns.
    /// - Parameter outcome: The pipeline's response or error.
    package func finish(_ outcome: Result<PipelineResponse, any Error>) {
        let (startWaiter, reader) = state.withLock { state -> (CheckedContinuation<Start, any Error>?, CheckedContinuation<[UInt8]?, any Error>?) in
            state.isClosedForClaims = true
            if state.start == nil {
                state.start = outcome.map { .complete($0) }
                defer { state.startWaiter = nil }
                return (state.startWaiter, nil)
            }
            state.end = Self.end(of: outcome, streamed: state.streamedCount, isBodyDetached: state.isBodyDetached)
            if case .success(let response) = outcome { state.finalTrace = response.trace }
            guard state.chunks.isEmpty else { return (nil, nil) }
            defer { state.reader = nil }
            return (nil, state.reader)
        }
        startWaiter?.resume(with: outcome.map { .complete($0) })
        reader?.resume(with: outcome.map { _ in nil })
    }

    /// How a claimed stream ends: with the pipeline's error, or — when the pipeline answered with something
    /// other than the response streamed (a stale response served because the transfer broke off, a body of
    /// another length) — with an error rather than a body that only looks complete. A detached body (not kept
    /// for the cache) has no length to compare.
    private static func end(
        of outcome: Result<PipelineResponse, any Error>,
        streamed: Int,
        isBodyDetached: Bool
    ) -> Result<Void, any Error> {
        switch outcome {
        case .failure(let error):
            return .failure(error)
        case .success(let response)
        where response.cacheStatus.isFromCache || (!isBodyDetached && response.body.count != streamed):
            return .failure(CacheChainError(
                .transportFailed,
                "the streamed response broke off after \(streamed) bytes (the cache answered with a \(response.cacheStatus) response of \(response.body.count) bytes instead); retry the request"
            ))
        case .success:
            return .success(())
        }
    }

    /// Waits until the response starts: a claim (its head amended, see ``amendStreamedHead(_:)``), or the
    /// pipeline's end.
    /// - Returns: How it starts.
    /// - Throws: The pipeline's error when it failed before a claim.
    package func start() async throws -> Start {
        let start = try await withCheckedThrowingContinuation { continuation in
            let started = state.withLock { state -> Result<Start, any Error>? in
                if let start = state.start { return start }
                state.startWaiter = continuation
                return nil
            }
            if let started { continuation.resume(with: started) }
        }
        guard case .streaming(var head) = start else { return start }
        let (amendments, decisions) = state.withLock { ($0.amendments, $0.decisions) }
        for amendment in amendments.reversed() { amendment(&head, decisions) }
        return .streaming(head)
    }

    /// The caller stopped reading: later writes fail, and a writer waiting for room is woken to learn it.
    package func abandon() {
        let (writable, reader) = state.withLock { state -> ((@Sendable () -> Void)?, CheckedContinuation<[UInt8]?, any Error>?) in
            state.isAbandoned = true
            state.isClosedForClaims = true
            state.chunks = []
            state.buffered = 0
            defer { state.onWritable = nil; state.reader = nil }
            return (state.onWritable, state.reader)
        }
        writable?()
        reader?.resume(throwing: CancellationError())
    }

    /// What an interceptor would change in the head of a response on its way back, for a streamed response
    /// the caller sees before the pipeline has returned: register it on the way in, when the context holds a
    /// stream (`InterceptorContext.responseBodyStream`).
    ///
    /// ```swift
    /// if let stream = context.responseBodyStream {
    ///     stream.amendStreamedHead { head, _ in head.headerFields[.server] = "edge-7" }   // as on a whole response
    /// }
    /// ```
    /// Amendments run on the caller's task when the streamed head arrives, the last registered (the innermost
    /// interceptor's) first, as responses travel back. They see the decisions recorded so far (the cache's
    /// lookup), not the storage decision, which is made only once the body is complete.
    /// - Parameter amendment: Changes the head; receives the decisions recorded so far.
    public func amendStreamedHead(_ amendment: @escaping @Sendable (inout HTTPResponse, [CacheReason]) -> Void) {
        state.withLock { $0.amendments.append(amendment) }
    }

    /// Records decisions made on the way in (the cache's lookup), for the streamed response's trace before the
    /// pipeline has finished; ignored once the response has started.
    /// - Parameter reasons: The reasons, in order.
    package func record(_ reasons: [CacheReason]) {
        state.withLock { state in
            guard state.start == nil, !state.isClosedForClaims else { return }
            state.decisions += reasons
        }
    }

    /// The trace of the caller's response: the decisions recorded so far, then, once the pipeline has returned
    /// the streamed response, its whole trace (the storage decision included).
    package var trace: [CacheReason] { state.withLock { $0.finalTrace ?? $0.decisions } }

    /// The most body bytes the cache would store for this request, when the storage decision knows it (its
    /// share of the storage's capacity), so a streaming transport stops keeping a body that cannot be stored
    /// as soon as its `Content-Length` or its running count says so; `nil` when unknown.
    package var storableBodyLimit: Int? { state.withLock { $0.storableBodyLimit } }

    /// Tells the transport the most body bytes the cache would store (see ``storableBodyLimit``).
    /// - Parameter limit: The largest storable body, in bytes.
    package func limitStorableBody(to limit: Int) {
        state.withLock { $0.storableBodyLimit = limit }
    }

    /// Whether the transport stopped keeping the body (it outgrew ``storableBodyLimit``): the response it returns
    /// then has an empty body and a `too-large` storage veto, while the caller's stream gets every byte.
    package var isBodyDetached: Bool { state.withLock { $0.isBodyDetached } }

    /// Records that the transport no longer keeps the body for the cache (see ``isBodyDetached``).
    package func detachBody() {
        state.withLock { $0.isBodyDetached = true }
    }

    /// The most bytes that were buffered at once: the stream's memory high-water mark.
    package var highWaterMark: Int { state.withLock { $0.highWaterMark } }

    /// Returns the buffered bytes as one chunk, or waits for the next write; `nil` at the end of the body.
    package func read() async throws -> [UInt8]? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let (ready, writable) = state.withLock { state -> (Result<[UInt8]?, any Error>?, (@Sendable () -> Void)?) in
                    if state.isAbandoned { return (.failure(CancellationError()), nil) }
                    if !state.chunks.isEmpty {
                        let chunk = state.chunks.count == 1 ? state.chunks[0] : Array(state.chunks.joined())
                        state.chunks = []
                        state.buffered = 0
                        defer { state.onWritable = nil }
                        return (.success(chunk), state.onWritable)
                    }
                    if let end = state.end { return (end.map { nil }, nil) }
                    state.reader = continuation
                    return (nil, nil)
                }
                writable?()
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            abandon()
        }
    }

    private struct State {
        var start: Result<Start, any Error>?
        var startWaiter: CheckedContinuation<Start, any Error>?
        var isClosedForClaims = false
        var chunks: [[UInt8]] = []
        var buffered = 0
        var highWaterMark = 0
        var end: Result<Void, any Error>?
        var streamedCount = 0
        var isAbandoned = false
        var storableBodyLimit: Int?
        var amendments: [@Sendable (inout HTTPResponse, [CacheReason]) -> Void] = []
        var decisions: [CacheReason] = []
        var finalTrace: [CacheReason]?
        var isBodyDetached = false
        var onWritable: (@Sendable () -> Void)?
        var reader: CheckedContinuation<[UInt8]?, any Error>?
    }
}

/// The context value that carries a request's ``ResponseBodyStream`` to the transport (set by
/// `HTTPCacheClient.stream(_:body:bufferLimit:_:)`, read by ``Pipeline``).
package enum ResponseBodyStreamKey: ContextValueKey {
    package typealias Value = ResponseBodyStream
}
