public import CacheChainCore
import CacheChainPolicy
import HTTPTypes
import Logging
import Synchronization
import Tracing

/// The network transport: libcurl's multi interface driven by dedicated threads (``Configuration/loopCount``, one
/// per core by default), with async/await on top.
///
/// ```swift
/// let client = HTTPCacheClient(transport: CurlTransport())
/// ```
/// - Connections are reused across requests (keep-alive) and HTTP/2 is used over TLS when the server
///   offers it (``Configuration/httpVersion``), with concurrent requests multiplexed as streams of one
///   connection; ``Configuration/recordsHTTPVersion`` reports the version used. TLS verifies against the system CA store or ``Configuration/caFile``, optionally with a
///   public key pin.
/// - No blocking call runs on Swift's cooperative pool: requests are handed to a libcurl thread (the one with
///   the fewest transfers in flight; for an `https` origin that speaks HTTP/2, the one thread its requests keep
///   to, so they share one connection) and the calling task suspends until the transfer finishes. The rest of the request
///   runs where its caller runs, so a cache hit crosses no thread; a task that prefers ``taskExecutor`` runs
///   on a libcurl thread and hands its transfers over without a thread wake-up.
/// - Cancelling the calling task aborts the transfer promptly and frees its handle.
/// - A `GET`, `HEAD`, `OPTIONS` or `TRACE` without a body whose connection or HTTP/2 stream the origin dropped
///   (libcurl's codes 16, 55, 56 and 92: a `GOAWAY`, a reset connection, a `REFUSED_STREAM`) is sent again, at
///   most twice; a request whose body a caller streams is not (see `mayRetry(_:after:streaming:)`).
/// - Redirects are not followed here: the cache must see each hop, so following them is the job of a
///   `RedirectInterceptor` outside the cache.
/// - The transport frames each message itself: a caller's `Content-Length`, `Transfer-Encoding` and `TE`
///   fields are not sent (libcurl sends the body's real length), so no request can desynchronise a reused
///   connection. A caller's `Host` field is sent (virtual-host testing, as `curl -H Host:`), and on HTTP/2
///   becomes `:authority`; the cache then neither answers nor stores that request, because its key is the
///   URL's host (see `CachePolicyEngine.hostMismatch(of:)`).
/// - Errors are `CacheChainError` values (`transport-failed`, `timed-out`, `cancelled`) whose message
///   carries libcurl's error-buffer text.
public final class CurlTransport: HTTPTransport {
    /// The transport's settings.
    public let configuration: Configuration
    private let loops: Result<[CurlMultiLoop], CacheChainError>
    /// The loop ``taskExecutor`` returns next (round-robin).
    private let nextLoop = Atomic<Int>(0)
    /// The thread each `https` origin that may speak HTTP/2 keeps to (one connection per origin).
    let affinity = OriginAffinity()

    /// Creates a transport and starts its libcurl threads (``Configuration/loopCount``).
    ///
    /// If libcurl cannot be initialized (a broken installation, no memory) every ``send(_:context:)``
    /// throws a `transport-failed` error saying so.
    /// - Parameter configuration: Timeouts, TLS trust, HTTP version and limits.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        BodyFileWriter.sweepLeftovers(in: configuration.spoolDirectory)
        var loops: [CurlMultiLoop] = []
        do {
            for _ in 0..<max(1, configuration.loopCount) {
                loops.append(try CurlMultiLoop(maximumConnectionsPerHost: configuration.maximumConnectionsPerHost))
            }
            self.loops = .success(loops)
        } catch {
            for loop in loops { loop.shutdown() }
            self.loops = .failure(error)
        }
    }

    deinit {
        if case .success(let loops) = loops { for loop in loops { loop.shutdown() } }
    }

    /// Stops the libcurl threads and waits until they have ended.
    ///
    /// Transfers still in flight fail with a `cancelled` error ("the transport was shut down"), and so does
    /// every later ``send(_:context:)``. Idempotent: a later or concurrent call returns once the threads have
    /// ended. Releasing the transport without calling it stops the threads too, but does not wait for them;
    /// `HTTPCacheClient.shutdown()` calls this after draining its background revalidations.
    public func shutdown() async {
        if case .success(let loops) = loops { for loop in loops { await loop.shutdownAndWait() } }
    }

    /// Whether ``shutdown()`` has stopped every libcurl thread (for tests).
    var hasShutDown: Bool {
        (try? loops.get())?.allSatisfy(\.hasEnded) ?? true
    }

    /// The easy handles the libcurl threads keep for their next transfers (for tests).
    var idleEasyHandleCount: Int {
        (try? loops.get())?.reduce(0) { $0 + $1.easyHandles.idleCount } ?? 0
    }

    /// The libcurl threads (for tests).
    var loopCount: Int {
        (try? loops.get())?.count ?? 0
    }

    /// The loop a transfer goes to: the caller's own when it runs on one; for an `https` origin that may speak
    /// HTTP/2, the one it keeps to (``OriginAffinity``), so its requests share one connection; otherwise the
    /// one with the fewest transfers in flight, the first on a tie, so sequential requests reuse one loop's
    /// connections (keep-alive) and concurrent ones spread over the loops.
    /// - Returns: The loop, and the origin whose affinity the transfer's negotiated version updates.
    private func chooseLoop(for request: HTTPRequest) throws(CacheChainError) -> (CurlMultiLoop, affinityOrigin: String?) {
        let loops = try self.loops.get()
        if loops.count == 1 { return (loops[0], nil) }
        if let current = loops.first(where: \.isCurrentThread) { return (current, nil) }
        func leastLoaded() -> Int {
            loops.indices.min {
                loops[$0].transfersInFlight.load(ordering: .relaxed) < loops[$1].transfersInFlight.load(ordering: .relaxed)
            } ?? 0
        }
        guard configuration.keepsHTTP2OriginsOnOneThread, configuration.httpVersion == .http2OverTLS,
            request.scheme == "https", let authority = request.authority
        else { return (loops[leastLoaded()], nil) }
        let host = authority.lowercased()
        let origin = "https://" + (host.hasSuffix(":443") ? String(host.dropLast(4)) : host)
        return (loops[affinity.loop(for: origin, leastLoaded: leastLoaded)], origin)
    }

    /// A libcurl thread as a task executor (each access returns the next thread in turn), for the lowest
    /// latency on sequential requests.
    ///
    /// By default the calling task hands each transfer to a libcurl thread and is resumed on Swift's cooperative
    /// pool when it ends: two thread wake-ups per miss (a hit crosses no thread). Code that runs with this
    /// executor as its preference runs *on* the libcurl thread instead, between rounds of libcurl's work, so a
    /// loop of requests crosses no thread at all:
    ///
    /// ```swift
    /// let transport = CurlTransport()
    /// let client = HTTPCacheClient(transport: transport)
    /// let response = try await withTaskExecutorPreference(transport.taskExecutor) {
    ///     try await client.data(for: HTTPRequest(url: "https://example.com/"))
    /// }
    /// ```
    ///
    /// Everything the task does then shares that one thread with every transfer of that thread: keep the
    /// work short and non-blocking there (a slow interceptor or a large disk write delays all transfers), and
    /// leave CPU-heavy work on the default pool. Actor-isolated code still runs on its actor. `nil` when
    /// libcurl could not be initialized (then ``send(_:context:)`` throws, and a `nil` preference means none).
    public var taskExecutor: (any TaskExecutor)? {
        guard let loops = try? self.loops.get() else { return nil }
        return loops[nextLoop.wrappingAdd(1, ordering: .relaxed).oldValue % loops.count]
    }

    /// Whether the caller runs on one of this transport's libcurl threads (for tests of ``taskExecutor``).
    var isOnLibcurlThread: Bool {
        (try? loops.get())?.contains(where: \.isCurrentThread) ?? false
    }

    /// The libcurl version and its TLS, compression and HTTP/2 libraries, e.g. for a `--version` output.
    public static var libcurlVersion: String { CurlGlobal.versionText }

    /// Sends one request over the network; in a traced request (a current `ServiceContext`, as the client's span
    /// sets) with the trace context the bootstrapped instrument injects (`traceparent`).
    /// - Parameters:
    ///   - request: The request; it needs an `http` or `https` scheme and an authority. Its
    ///     `PipelineRequest.timeout` overrides ``Configuration/requestTimeout``.
    ///   - context: Its context: a ``TransferProgressKey`` handler in its values is told how far the body has arrived.
    /// - Returns: The response (status `miss`: it came from the network).
    /// - Throws: `CacheChainError` (`invalid-request`, `transport-failed`, `timed-out`, `cancelled`).
    public func send(_ request: PipelineRequest, context: InterceptorContext) async throws -> PipelineResponse {
        try await perform(request, context: context, streamingTo: nil)
    }

    /// Sends one request over the network, handing the body of a `2xx` response to the caller's stream as it
    /// arrives (see `HTTPTransport.send(_:context:streamingTo:)`); the transfer pauses while the stream is full.
    /// - Parameters:
    ///   - request: The request; it needs an `http` or `https` scheme and an authority.
    ///   - context: Its context, as for ``send(_:context:)``.
    ///   - stream: The caller's stream.
    /// - Returns: The whole response, for the cache.
    /// - Throws: As ``send(_:context:)``; `transport-failed` when the caller stopped reading.
    public func send(
        _ request: PipelineRequest,
        context: InterceptorContext,
        streamingTo stream: ResponseBodyStream
    ) async throws -> PipelineResponse {
        try await perform(request, context: context, streamingTo: stream)
    }

    /// Runs the transfer, and sends it again when the origin dropped its connection or HTTP/2 stream under a
    /// request that may be repeated (``mayRetry(_:after:streaming:)``).
    private func perform(
        _ request: PipelineRequest,
        context: InterceptorContext,
        streamingTo stream: ResponseBodyStream?
    ) async throws -> PipelineResponse {
        var request = request
        // The trace context of the caller's span (the client's span of the request) goes to the origin, as
        // AsyncHTTPClient sends it: `traceparent` and what else the bootstrapped instrument writes.
        if let serviceContext = ServiceContext.current {
            InstrumentationSystem.instrument.inject(serviceContext, into: &request.head.headerFields, using: HTTPFieldsInjector())
        }
        var retries = 0
        while true {
            do {
                return try await performOnce(request, context: context, streamingTo: stream)
            } catch where retries < Self.connectionRetries && Self.mayRetry(request, after: error, streaming: stream != nil) {
                retries += 1
                context.logger.debug(
                    "the origin dropped the connection or HTTP/2 stream; sending the request again",
                    metadata: ["url": "\(request.head.scheme ?? "")://\(request.head.authority ?? "")\(request.head.path ?? "")", "error": "\(error)"]
                )
            }
        }
    }

    private func performOnce(
        _ request: PipelineRequest,
        context: InterceptorContext,
        streamingTo stream: ResponseBodyStream?
    ) async throws -> PipelineResponse {
        try Task.checkCancellation()
        let (loop, affinityOrigin) = try chooseLoop(for: request.head)
        let transfer = try CurlTransfer(
            request: request,
            configuration: configuration,
            timeout: request.timeout ?? configuration.requestTimeout,
            progress: context.values[TransferProgressKey.self],
            handles: loop.easyHandles
        )
        transfer.interimHandler = context.values[InterimResponseKey.self]
        if let stream {
            transfer.bodyStream = stream
            transfer.resumeStreaming = { [id = transfer.id] in loop.resume(id) }
        }
        loop.transfersInFlight.add(1, ordering: .relaxed)
        defer { loop.transfersInFlight.subtract(1, ordering: .relaxed) }
        let received = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.install(continuation)
                loop.submit(transfer)
            }
        } onCancel: {
            loop.cancel(transfer)
        }
        if let affinityOrigin { affinity.record(received.version, for: affinityOrigin) }
        var response = PipelineResponse(head: received.head, body: received.body)
        response.interimResponses = received.interim
        if let defect = received.framingDefect {
            response.storageVeto = CacheReason(.framing, "\(defect); its head was rewritten from the body received")
        }
        if let stream, stream.isBodyDetached {
            // The caller read the body; the cache kept none of it (see `CurlTransfer.streamingVerdict(for:)`).
            let limit = stream.storableBodyLimit.map { " of \($0) bytes" } ?? ""
            response.storageVeto = CacheReason(.tooLarge, "the streamed body exceeds the store's limit\(limit): it was handed to the caller, not kept")
        }
        if configuration.recordsHTTPVersion, let version = received.version {
            response.userInfo[NegotiatedHTTPVersionKey.self] = version
        }
        return response
    }
}
