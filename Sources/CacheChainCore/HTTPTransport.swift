/// The one component of a pipeline that does network I/O.
///
/// Interceptors decide; the transport sends. A pipeline has exactly one transport, called as the innermost
/// `next`. Write a transport to reach a new kind of origin (libcurl, a test double, an in-process server);
/// write an ``HTTPInterceptor`` to change what is sent or what comes back.
///
/// A transport must not follow redirects itself (the cache has to see each hop; redirects are followed
/// by an interceptor outside the cache), must honour ``PipelineRequest/timeout`` and task cancellation,
/// and reports failures by throwing (typically a ``CacheChainError`` with ``CacheChainError/Code/transportFailed``).
public protocol HTTPTransport: Sendable {
    /// Sends a request and returns the origin's response.
    /// - Parameters:
    ///   - request: The request to send.
    ///   - context: The request's context (timeout, logger).
    /// - Returns: The response with `cacheStatus` `.miss`.
    /// - Throws: When no response could be obtained.
    func send(_ request: PipelineRequest, context: InterceptorContext) async throws -> PipelineResponse

    /// Sends a request for a caller that reads the body as it arrives (`HTTPCacheClient.stream(_:body:bufferLimit:_:)`),
    /// and returns the whole response as ``send(_:context:)`` does, for the interceptors that store it.
    ///
    /// A streaming transport ``ResponseBodyStream/claim(_:)``s `stream` with the final head of a `2xx`
    /// response that has a body, then writes each piece of the body to the stream as it arrives (waiting while
    /// the stream's buffer is full, so a slow reader slows the transfer instead of growing memory) as well as
    /// into the body it returns. The default buffers: it calls ``send(_:context:)`` and leaves the stream
    /// alone, and the caller then reads the finished body.
    /// - Parameters:
    ///   - request: The request to send.
    ///   - context: The request's context.
    ///   - stream: Where the caller reads the body from.
    /// - Returns: The whole response, with `cacheStatus` `.miss`.
    /// - Throws: When no response could be obtained, or the caller stopped reading (`CancellationError`).
    func send(
        _ request: PipelineRequest,
        context: InterceptorContext,
        streamingTo stream: ResponseBodyStream
    ) async throws -> PipelineResponse

    /// Releases what the transport holds (its thread, its connections), after which ``send(_:context:)``
    /// fails with a `cancelled` error.
    ///
    /// Idempotent: a second call, or one made while a first is still running, returns once the transport is
    /// shut down. Transfers still in flight fail with `cancelled`. A transport that holds nothing needs no
    /// implementation: the default does nothing. `HTTPCacheClient.shutdown()` calls it after draining the
    /// client's background revalidations.
    func shutdown() async
}

extension HTTPTransport {
    /// Buffers: sends with ``send(_:context:)`` and leaves the stream unclaimed, so the caller reads the
    /// finished body.
    /// - Parameters:
    ///   - request: The request to send.
    ///   - context: The request's context.
    ///   - stream: Left alone.
    /// - Returns: The response.
    /// - Throws: What ``send(_:context:)`` throws.
    public func send(
        _ request: PipelineRequest,
        context: InterceptorContext,
        streamingTo stream: ResponseBodyStream
    ) async throws -> PipelineResponse {
        try await send(request, context: context)
    }

    /// Does nothing: for transports that hold no thread, connection or other resource.
    public func shutdown() async {}
}
