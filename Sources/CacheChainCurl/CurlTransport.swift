public import CacheChainCore

/// The network transport: libcurl's multi interface driven by one dedicated thread, with async/await on top.
///
/// ```swift
/// let client = HTTPCacheClient(transport: try CurlTransport())
/// ```
/// - Connections are reused across requests (keep-alive) and HTTP/2 is used over TLS when the server
///   offers it (``Configuration/httpVersion``), with concurrent requests multiplexed as streams of one
///   connection; ``Configuration/recordsHTTPVersion`` reports the version used. TLS verifies against the system CA store or ``Configuration/caFile``, optionally with a
///   public key pin.
/// - No blocking call runs on Swift's cooperative pool: requests are handed to the libcurl thread and
///   the calling task suspends until the transfer finishes.
/// - Cancelling the calling task aborts the transfer promptly and frees its handle.
/// - Redirects are not followed here: the cache must see each hop, so following them is the job of a
///   `RedirectInterceptor` outside the cache.
/// - Errors are ``CacheChainError`` values (`transport-failed`, `timed-out`, `cancelled`) whose message
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
        do {
            self.loop = .success(try CurlMultiLoop(maximumConnectionsPerHost: configuration.maximumConnectionsPerHost))
        } catch {
            self.loop = .failure(error)
        }
    }

    deinit {
        if case .success(let loop) = loop { loop.shutdown() }
    }

    /// The libcurl version and its TLS, compression and HTTP/2 libraries, e.g. for a `--version` output.
    public static var libcurlVersion: String { CurlGlobal.versionText }

    /// Sends one request over the network.
    /// - Parameters:
    ///   - request: The request; it needs an `http` or `https` scheme and an authority.
    ///   - context: Its context; ``InterceptorContext/timeout`` overrides ``Configuration/requestTimeout``, and a
    ///     ``TransferProgressKey`` handler in its values is told how far the body has arrived.
    /// - Returns: The response (status `miss`: it came from the network).
    /// - Throws: ``CacheChainError`` (`invalid-request`, `transport-failed`, `timed-out`, `cancelled`).
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
        if configuration.recordsHTTPVersion, let version = received.version {
            response.userInfo[NegotiatedHTTPVersionKey.self] = version
        }
        return response
    }
}
