/// An ordered chain of interceptors in front of one transport.
///
/// ```
///            request ──▶                                         ──▶ network
///  caller  [ interceptors[0] → interceptors[1] → … → interceptors[n-1] ]  transport
///            ◀── response                                        ◀──
/// ```
/// The array is the source of truth: `interceptors[0]` is the outermost, sees the request first and the
/// response last. The chain is folded into closures once, at initialization. The default cache chain
/// (`HTTPCacheClient.defaultInterceptors(for:)`) is the configuration's outer interceptors (`UserInfoStamping`,
/// `HTTPSEncryption`…), then `CachePolicy → Revalidation → StorageDecision → transport`.
public struct Pipeline: Sendable {
    /// The interceptors, outermost first.
    public let interceptors: [any HTTPInterceptor]
    /// The transport at the end of the chain.
    public let transport: any HTTPTransport
    private let entry: Next

    /// Creates a pipeline from an array of interceptors.
    /// - Parameters:
    ///   - interceptors: Outermost first.
    ///   - transport: The one transport that does I/O.
    public init(interceptors: [any HTTPInterceptor], transport: any HTTPTransport) {
        self.interceptors = interceptors
        self.transport = transport
        var next: Next = { request, context in
            // A caller reading the body as it arrives (`HTTPCacheClient.stream`) left a stream for the transport.
            guard let stream = context.responseBodyStream else {
                return try await transport.send(request, context: context)
            }
            return try await transport.send(request, context: context, streamingTo: stream)
        }
        // A bound interceptor's hops go through a pipeline made anew from the same parts: holding this one
        // would be a reference cycle.
        let outermost: Next = { request, context in
            try await Pipeline(interceptors: interceptors, transport: transport).send(request, context: context)
        }
        for interceptor in interceptors.reversed() {
            let bound = (interceptor as? any ChainBoundInterceptor)?.bound(to: InterceptorChain(inner: next, outermost: outermost))
            next = Self.link(bound ?? interceptor, to: next)
        }
        self.entry = next
    }

    /// Creates a pipeline with the ``InterceptorBuilder`` result builder.
    /// - Parameters:
    ///   - transport: The one transport that does I/O.
    ///   - interceptors: The interceptors, outermost first; `if` and `for` are allowed.
    public init(transport: any HTTPTransport, @InterceptorBuilder interceptors: () -> [any HTTPInterceptor]) {
        self.init(interceptors: interceptors(), transport: transport)
    }

    /// Sends a request through the chain.
    /// - Parameters:
    ///   - request: The request.
    ///   - context: Its context.
    /// - Returns: The response as left by the outermost interceptor.
    /// - Throws: Whatever the chain throws.
    public func send(_ request: PipelineRequest, context: InterceptorContext) async throws -> PipelineResponse {
        try await entry(request, context)
    }

    private static func link(_ interceptor: any HTTPInterceptor, to next: @escaping Next) -> Next {
        #if DEBUG
        return { request, context in
            let gate = CallOnceGate(interceptorName: String(describing: type(of: interceptor)))
            return try await interceptor.intercept(request, context: context) { request, context in
                try gate.pass()
                return try await next(request, context)
            }
        }
        #else
        return { request, context in
            try await interceptor.intercept(request, context: context, next: next)
        }
        #endif
    }
}
