#if AsyncHTTPClient
public import AsyncHTTPClient
public import CacheChainCore
import HTTPTypes
public import NIOCore

/// A transport over AsyncHTTPClient's `HTTPClient.execute`: CacheChain for services built on SwiftNIO, with no
/// libcurl.
///
/// ```swift
/// import CacheChain
/// import CacheChainAsyncHTTPClient
///
/// let transport = CacheChainAHCTransport()
/// let client = HTTPCacheClient(transport: transport)
/// let response = try await client.data(for: HTTPRequest(url: "https://example.com/"))
/// print(response.cacheStatus)
/// try await client.shutdown()   // shuts the transport's HTTPClient down
/// ```
///
/// - The transport either creates its own `HTTPClient` from an `HTTPClient.Configuration` (TLS trust, HTTP/2,
///   connection pool, proxy, decompression: AsyncHTTPClient's settings) and shuts it down in ``shutdown()``, or
///   uses one you own (``init(client:decompresses:configuration:)``), which it never shuts down.
/// - Redirects are never followed here: the cache must see each hop, so `HTTPCacheClient` follows them itself,
///   through the cache (its `RedirectInterceptor`). A client the transport creates has redirects disallowed; a
///   client you pass must have too (`redirectConfiguration: .disallow`): one that follows them, such as
///   `HTTPClient.shared`, is refused by ``init(client:decompresses:configuration:)`` with `invalid-configuration`
///   (and, should its setting be unreadable, a redirect it followed fails the request the same way rather than
///   being cached under the wrong URL).
/// - With decompression on (`HTTPClient.Configuration.decompression`), AsyncHTTPClient asks for and decodes
///   gzip and deflate; the transport then drops `Content-Encoding` and `Content-Length` from the head, so what
///   the cache stores describes the decoded body.
/// - Response bodies are streamed into memory up to ``Configuration/inMemoryBodyLimit`` and into a temporary
///   file beyond it, so a 1 GiB download holds at most that much memory.
/// - Cancelling the calling task cancels the request; errors are `CacheChainError` values (`timed-out`,
///   `cancelled`, `transport-failed`) naming the URL, with AsyncHTTPClient's error as
///   `CacheChainError.underlying`.
public final class CacheChainAHCTransport: HTTPTransport {
    /// The transport's settings.
    public let configuration: Configuration
    /// The AsyncHTTPClient client every request goes through.
    public let client: HTTPClient
    /// Whether the transport created ``client`` (and so shuts it down).
    private let ownsClient: Bool
    /// Whether the client decodes gzip and deflate bodies.
    private let decompresses: Bool
    private let shutdownGate = ShutdownOnce()

    /// Creates a transport with an `HTTPClient` of its own, shut down by ``shutdown()``.
    /// - Parameters:
    ///   - configuration: The transport's timeout and body limits.
    ///   - clientConfiguration: AsyncHTTPClient's settings (TLS, HTTP version, pool, decompression); its redirect
    ///     setting is replaced by `.disallow`.
    ///   - eventLoopGroup: The event loops the client runs on; AsyncHTTPClient's shared default group.
    public init(
        configuration: Configuration = Configuration(),
        clientConfiguration: HTTPClient.Configuration = HTTPClient.Configuration(),
        eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup
    ) {
        var clientConfiguration = clientConfiguration
        clientConfiguration.redirectConfiguration = .disallow
        if case .enabled = clientConfiguration.decompression { decompresses = true } else { decompresses = false }
        self.configuration = configuration
        self.client = HTTPClient(eventLoopGroup: eventLoopGroup, configuration: clientConfiguration)
        self.ownsClient = true
    }

    /// Creates a transport over an `HTTPClient` you own and shut down yourself, one created with
    /// `HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: .init(redirectConfiguration: .disallow))`
    /// for example (`HTTPClient.shared` follows redirects, so it is refused).
    ///
    /// - Parameters:
    ///   - client: The client; create it with `redirectConfiguration: .disallow`.
    ///   - decompresses: Whether the client was created with decompression enabled (the transport then drops
    ///     `Content-Encoding` and `Content-Length` from decoded responses).
    ///   - configuration: The transport's timeout and body limits.
    /// - Throws: `invalid-configuration` when `client` follows redirects itself (`HTTPClient.shared` and
    ///   AsyncHTTPClient's default configuration do): the cache would store each final response under the first
    ///   URL and never see the hops.
    public init(client: HTTPClient, decompresses: Bool = false, configuration: Configuration = Configuration()) throws(CacheChainError) {
        if Self.followsRedirects(client) == true {
            throw CacheChainError(
                .invalidConfiguration,
                "CacheChainAHCTransport(client:) was given an HTTPClient that follows redirects itself (HTTPClient.shared and "
                    + "HTTPClient.Configuration() do), so the cache would store each final response under the first URL; pass one "
                    + "created with redirectConfiguration: .disallow, e.g. HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, "
                    + "configuration: .init(redirectConfiguration: .disallow)), or use CacheChainAHCTransport(clientConfiguration:): "
                    + "HTTPCacheClient follows redirects itself, through the cache"
            )
        }
        self.configuration = configuration
        self.client = client
        self.ownsClient = false
        self.decompresses = decompresses
    }

    /// Whether `client` follows redirects itself: AsyncHTTPClient keeps its configuration internal, so it is read
    /// by reflection (`configuration.redirectConfiguration.mode`); `nil` when it cannot be read (the check in
    /// ``send(_:context:)`` still refuses a followed redirect).
    /// - Parameter client: The client.
    /// - Returns: `true` for `.follow`, `false` for `.disallow`, `nil` when unknown.
    static func followsRedirects(_ client: HTTPClient) -> Bool? {
        guard let mode = Mirror(reflecting: client).descendant("configuration", "redirectConfiguration", "mode") else { return nil }
        let description = String(describing: mode)
        if description.hasPrefix("follow") { return true }
        if description.hasPrefix("disallow") { return false }
        return nil
    }

    deinit {
        // AsyncHTTPClient traps in debug builds when a client is released without being shut down: a transport
        // released without `shutdown()` starts the shutdown of the client it created (without waiting for it).
        if ownsClient, !shutdownGate.hasStarted {
            _ = client.shutdown() as EventLoopFuture<Void>
        }
    }

    /// Sends one request through the `HTTPClient` and reads its body.
    /// - Parameters:
    ///   - request: The request; it needs an `http` or `https` scheme and an authority. Its
    ///     `PipelineRequest.timeout` overrides ``Configuration/requestTimeout``.
    ///   - context: Its context.
    /// - Returns: The response (status `miss`: it came from the network).
    /// - Throws: `CacheChainError` (`invalid-request`, `invalid-configuration`, `transport-failed`, `timed-out`,
    ///   `cancelled`).
    public func send(_ request: PipelineRequest, context: InterceptorContext) async throws -> PipelineResponse {
        let outgoing = try Self.clientRequest(for: request)
        let url = outgoing.url
        let timeout = request.timeout ?? configuration.requestTimeout
        guard !shutdownGate.hasStarted else {
            throw CacheChainError(.cancelled, "the request to \(url) was not sent: the transport was shut down", request: request.head)
        }
        var headArrived = false
        do {
            try Task.checkCancellation()
            let deadline = NIODeadline.now() + TimeAmount(timeout)
            let response = try await client.execute(outgoing, deadline: deadline, logger: context.logger)
            headArrived = true
            guard response.history.count <= 1 else {
                throw CacheChainError(
                    .invalidConfiguration,
                    "the HTTPClient followed a redirect from \(url); create it with redirectConfiguration: .disallow so the cache sees every hop (a RedirectInterceptor follows them)",
                    request: request.head
                )
            }
            var head = Self.responseHead(of: response)
            if decompresses { Self.describeDecodedBody(&head) }
            let body = try await beforeDeadline(deadline) { try await self.collectBody(of: response, url: url) }
            return PipelineResponse(head: head, body: body)
        } catch {
            var wrapped = Self.wrap(error, url: url, timeout: timeout, request: request.head, isShutDown: shutdownGate.hasStarted)
            // Refused, unresolved, reset or closed before a response head: unreachable (RFC 9111 §4.2.4), as libcurl marks it.
            if !headArrived, wrapped.code == .transportFailed { wrapped.isOriginUnreachable = Self.isUnreachable(error) }
            throw wrapped
        }
    }

    /// Runs `work` (reading the body), cancelling it at `deadline`: AsyncHTTPClient's own deadline ends when the
    /// head has arrived, and the configured timeout covers the whole request. The timer runs on an event loop, so
    /// it fires on time even when Swift's cooperative pool is busy.
    /// - Throws: `HTTPClientError.deadlineExceeded` when the deadline cancelled the work; what `work` throws.
    private func beforeDeadline<Result: Sendable>(
        _ deadline: NIODeadline,
        _ work: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let expired = LockedValue(false)
        let reading = Task { try await work() }
        let timer = client.eventLoopGroup.any().scheduleTask(deadline: deadline) {
            expired.withLock { $0 = true }
            reading.cancel()
        }
        defer { timer.cancel() }
        do {
            return try await withTaskCancellationHandler { try await reading.value } onCancel: { reading.cancel() }
        } catch where expired.withLock({ $0 }) {
            throw HTTPClientError.deadlineExceeded
        }
    }

    /// Reads a response body into memory, or past ``Configuration/inMemoryBodyLimit`` into a spool file.
    private func collectBody(of response: HTTPClientResponse, url: String) async throws -> PipelineBody {
        let spool = BodySpool(limits: .init(
            inMemoryBodyLimit: configuration.inMemoryBodyLimit,
            maximumBodySize: configuration.maximumBodySize,
            spoolDirectory: configuration.spoolDirectory
        ))
        do {
            for try await buffer in response.body {
                try await spool.append(buffer.readableBytesView)
                try Task.checkCancellation()
            }
            return try await spool.finish()
        } catch let error as CacheChainError where error.code == .storageFailed {
            throw CacheChainError(
                .transportFailed,
                "the response from \(url) could not be spooled to \(configuration.spoolDirectory): \(error.message); free disk space or set CacheChainAHCTransport.Configuration.spoolDirectory",
                underlying: error
            )
        } catch let error as CacheChainError where error.code == .transportFailed {
            throw CacheChainError(
                .transportFailed,
                "the response from \(url) is larger than maximumBodySize (\(configuration.maximumBodySize) bytes); raise it in CacheChainAHCTransport.Configuration",
                underlying: error
            )
        }
    }

    /// Shuts down the `HTTPClient` the transport created (a client you passed in is left running).
    ///
    /// Requests in flight fail with `cancelled`, and so does every later ``send(_:context:)``. Idempotent: a later
    /// or concurrent call returns once the client is shut down. `HTTPCacheClient.shutdown()` calls it.
    public func shutdown() async {
        let client = self.client
        let ownsClient = self.ownsClient
        try? await shutdownGate.run {
            guard ownsClient else { return }
            try? await client.shutdown()
        }
    }
}
#endif
