/// An interceptor backed by a closure, for small one-off links.
///
/// ```swift
/// let tagger = AnyInterceptor(name: "tagger") { request, context, next in
///     var request = request
///     request.head.headerFields[.userAgent] = "CacheChain"
///     return try await next(request, context)
/// }
/// ```
public struct AnyInterceptor: HTTPInterceptor {
    /// A name for logs and diagnostics.
    public let name: String
    private let body: @Sendable (PipelineRequest, InterceptorContext, Next) async throws -> PipelineResponse

    /// Creates an interceptor from a closure.
    /// - Parameters:
    ///   - name: A name for logs and diagnostics.
    ///   - body: The interception; it must follow the ``HTTPInterceptor`` contract.
    public init(
        name: String = "AnyInterceptor",
        _ body: @escaping @Sendable (PipelineRequest, InterceptorContext, Next) async throws -> PipelineResponse
    ) {
        self.name = name
        self.body = body
    }

    /// Runs the closure.
    /// - Parameters:
    ///   - request: The request.
    ///   - context: The context.
    ///   - next: The rest of the chain.
    /// - Returns: The closure's response.
    /// - Throws: The closure's error.
    public func intercept(
        _ request: PipelineRequest,
        context: InterceptorContext,
        next: Next
    ) async throws -> PipelineResponse {
        try await body(request, context, next)
    }
}
