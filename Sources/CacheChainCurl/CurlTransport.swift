public import CacheChainCore
import CacheChainPolicy

/// The network transport: libcurl's multi interface driven by one dedicated thread, with async/await on top.
///
/// ```swift
/// let client = HTTPCacheClient(transport: CurlTransport())
/// ```
/// - Connections are reused across requests (keep-alive) and HTTP/2 is used over TLS when the server
///   offers it (``Configuration/httpVersion``), with concurrent requests multiplexed as streams of one
///   connection; ``Configuration/recordsHTTPVersion`` reports the version used. TLS verifies against the system CA store or ``Configuration/caFile``, optionally with a
///   public key pin.
/// - No blocking call runs on Swift's cooperative pool: requests are handed to the libcurl thread and
///   the calling task suspends until the transfer finishes.
///   Tasks that prefer ``taskExecutor`` run on the libcurl thread itself and skip that hand-off.
/// - Cancelling the calling task aborts the transfer promptly and frees its handle.
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
    private let loop: Result<CurlMultiLoop, CacheChainError>

    /// Creates a transport and starts its libcurl thread.
    ///
    /// If libcurl cannot be initialized (a broken installation, no memory) every ``send(_:context:)``
    /// throws a `transport-failed` error saying so.
    /// - Parameter configuration: Timeouts, TLS trust, HTTP version and limits.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        BodyFileWriter.sweepLeftovers(in: configuration.spoolDirectory)
        do {
            self.loop = .success(try CurlMultiLoop(maximumConnectionsPerHost: configuration.maximumConnectionsPerHost))
        } catch {
            self.loop = .failure(error)
        }
    }

    deinit {
        if case .success(let loop) = loop { loop.shutdown() }
    }

    /// Stops the libcurl thread and waits until it has ended.
    ///
    /// Transfers still in flight fail with a `cancelled` error ("the transport was shut down"), and so does
    /// every later ``send(_:context:)``. Idempotent: a later or concurrent call returns once the thread has
    /// ended. Releasing the transport without calling it stops the thread too, but does not wait for it;
    /// `HTTPCacheClient.shutdown()` calls this after draining its background revalidations.
    public func shutdown() async {
        if case .success(let loop) = loop { await loop.shutdownAndWait() }
    }

    /// Whether ``shutdown()`` has stopped the libcurl thread (for tests).
    var hasShutDown: Bool {
        (try? loop.get())?.hasEnded ?? true
    }

    /// The libcurl thread as a task executor, for the lowest latency on sequential requests.
    ///
    /// A request normally costs two thread wake-ups: the calling task hands its transfer to the libcurl thread,
    /// and that thread resumes the task on Swift's cooperative pool when the transfer ends. Code that runs with
    /// this executor as its preference runs *on* the libcurl thread instead, between rounds of libcurl's work,
    /// so a request is handed over and resumed without crossing threads:
    ///
    /// ```swift
    /// let transport = CurlTransport()
    /// let client = HTTPCacheClient(transport: transport)
    /// let response = try await withTaskExecutorPreference(transport.taskExecutor) {
    ///     try await client.data(for: HTTPRequest(url: "https://example.com/"))
    /// }
    /// ```
    ///
    /// Everything the task does then shares that one thread with every transfer of this transport: keep the
    /// work short and non-blocking there (a slow interceptor or a large disk write delays all transfers), and
    /// leave CPU-heavy work on the default pool. Actor-isolated code still runs on its actor. `nil` when
    /// libcurl could not be initialized (then ``send(_:context:)`` throws, and a `nil` preference means none).
    public var taskExecutor: (any TaskExecutor)? {
        try? loop.get()
    }

    /// Whether the caller runs on this transport's libcurl thread (for tests of ``taskExecutor``).
    var isOnLibcurlThread: Bool {
        (try? loop.get())?.isCurrentThread ?? false
    }

    /// The libcurl version and its TLS, compression and HTTP/2 libraries, e.g. for a `--version` output.
    public static var libcurlVersion: String { CurlGlobal.versionText }

    /// Sends one request over the network.
    /// - Parameters:
    ///   - request: The request; it needs an `http` or `https` scheme and an authority.
    ///   - context: Its context; `InterceptorContext.timeout` overrides ``Configuration/requestTimeout``, and a
    ///     ``TransferProgressKey`` handler in its values is told how far the body has arrived.
    /// - Returns: The response (status `miss`: it came from the network).
    /// - Throws: `CacheChainError` (`invalid-request`, `transport-failed`, `timed-out`, `cancelled`).
    public func send(_ request: PipelineRequest, context: InterceptorContext) async throws -> PipelineResponse {
        try Task.checkCancellation()
        let loop = try self.loop.get()
        let transfer = try CurlTransfer(
            request: request,
            configuration: configuration,
            timeout: context.timeout ?? configuration.requestTimeout,
            progress: context.values[TransferProgressKey.self]
        )
        let received = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.install(continuation)
                loop.submit(transfer)
            }
        } onCancel: {
            loop.cancel(transfer)
        }
        var response = PipelineResponse(head: received.head, body: received.body)
        if let defect = received.framingDefect {
            response.storageVeto = CacheReason(.framing, "\(defect); its head was rewritten from the body received")
        }
        if configuration.recordsHTTPVersion, let version = received.version {
            response.userInfo[NegotiatedHTTPVersionKey.self] = version
        }
        return response
    }
}
