/// Where an interceptor that sends requests of its own sends them, handed to it once, when its ``Pipeline`` is
/// built (``ChainBoundInterceptor``).
///
/// Unlike `next`, both entry points may be called any number of times, and after the request being handled
/// has returned: a background revalidation outlives the request that started it.
public struct InterceptorChain: Sendable {
    /// The interceptors inside the bound one, then the transport: what `next` calls, reusable.
    public let inner: Next
    /// The whole pipeline from its outermost interceptor: a redirect's next hop passes every interceptor again.
    public let outermost: Next

    /// Creates a chain.
    /// - Parameters:
    ///   - inner: The interceptors inside the bound one, then the transport.
    ///   - outermost: The whole pipeline.
    public init(inner: @escaping Next, outermost: @escaping Next) {
        self.inner = inner
        self.outermost = outermost
    }
}

/// An interceptor that sends requests besides the one it is handed: the ``Pipeline`` binds it to the chain it
/// stands in, once, at initialization, and links what ``bound(to:)`` returns.
///
/// The cache-policy interceptor revalidates in the background through ``InterceptorChain/inner``; the
/// redirect follower sends each hop through ``InterceptorChain/outermost``. Unbound (used outside a pipeline),
/// such an interceptor documents what it does instead.
public protocol ChainBoundInterceptor: HTTPInterceptor {
    /// This interceptor, bound to the chain it stands in.
    /// - Parameter chain: Its pipeline's entry points.
    /// - Returns: The interceptor the pipeline links in its place.
    func bound(to chain: InterceptorChain) -> any HTTPInterceptor
}
