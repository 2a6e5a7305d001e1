/// The continuation an interceptor calls to pass a request to the rest of the chain.
public typealias Next = @Sendable (PipelineRequest, InterceptorContext) async throws -> PipelineResponse

/// A link in the pipeline: sees every request on its way to the transport and every response on its way back.
///
/// ```
///  caller ──▶ [interceptor 0] ──▶ [interceptor 1] ──▶ … ──▶ transport ──▶ origin
///  caller ◀── [interceptor 0] ◀── [interceptor 1] ◀── … ◀── transport ◀──
/// ```
/// The first interceptor of a ``Pipeline`` is the outermost: it sees the request first and the response last.
///
/// ## Contract
/// - Call `next` **at most once**. Debug builds enforce this: a second call throws
///   ``CacheChainError/Code/interceptorContractViolation``. `next` is non-escaping: an interceptor whose work
///   outlives the call (background revalidation) is a ``ChainBoundInterceptor`` and uses its ``InterceptorChain``.
/// - Short-circuit by returning a response without calling `next` (that is how a cache hit works).
/// - Change the request or the ``InterceptorContext`` before calling `next`: only inner interceptors see
///   the change. Facts for outer interceptors travel back on the ``PipelineResponse``.
/// - Never swallow task cancellation.
///
/// Write an interceptor to change what is sent or what comes back; write an ``HTTPTransport`` to do I/O.
public protocol HTTPInterceptor: Sendable {
    /// Handles one request.
    /// - Parameters:
    ///   - request: The request as left by the outer interceptors.
    ///   - context: The request's context as left by the outer interceptors.
    ///   - next: The rest of the chain; call it at most once.
    /// - Returns: The response for the outer interceptors.
    /// - Throws: Whatever `next` throws, or the interceptor's own error.
    func intercept(
        _ request: PipelineRequest,
        context: InterceptorContext,
        next: Next
    ) async throws -> PipelineResponse
}
