public import CacheChainCore
public import CacheChainPolicy
import HTTPTypes

/// Adds a `Cache-Status` field (RFC 9211) to every response, opt-in: put it first in
/// `HTTPCacheClient.Configuration.outerInterceptors` so that it sees the final outcome.
///
/// ```swift
/// let client = HTTPCacheClient(
///     transport: transport,
///     configuration: .init(outerInterceptors: [CacheStatusInterceptor()])
/// )
/// let response = try await client.data(for: request)
/// print(response.head.headerFields[CacheStatusField.name] ?? "")  // CacheChain; hit; ttl=540
/// ```
///
/// The value is built by ``CacheStatusField/value(for:cacheName:now:policy:)`` from the response's
/// `CacheStatus` and trace; the cache interceptors are not involved. A `Cache-Status` the origin (or an
/// upstream cache) sent is kept and this cache's member is added after it, as RFC 9211 §2 orders them
/// (the cache nearest the user last). A miss streamed with `HTTPCacheClient.stream` gets its member on the
/// streamed head, from the lookup's decisions: without `stored`, which is decided once the body is complete (the
/// response's trace says it then).
public struct CacheStatusInterceptor: HTTPInterceptor {
    /// The cache's name in the field, `CacheChain` by default.
    public var cacheName: String
    /// The freshness rules `ttl` is computed with (use the client's `policy`).
    public var policy: CachePolicyConfiguration

    /// Creates the interceptor.
    /// - Parameters:
    ///   - cacheName: The member's name: an sf-token such as `CacheChain` or `app-cache`.
    ///   - policy: The freshness rules; a private cache's by default.
    public init(cacheName: String = "CacheChain", policy: CachePolicyConfiguration = .init()) {
        self.cacheName = cacheName
        self.policy = policy
    }

    /// Sends the request on and adds the `Cache-Status` member to the response.
    /// - Parameters:
    ///   - request: The request.
    ///   - context: The context; its `now` dates `ttl`.
    ///   - next: The rest of the chain.
    /// - Returns: The response with its `Cache-Status`.
    /// - Throws: What `next` throws.
    public func intercept(_ request: PipelineRequest, context: InterceptorContext, next: Next) async throws -> PipelineResponse {
        if let stream = context.responseBodyStream {
            stream.amendStreamedHead { [cacheName, policy, clock = context.clock] head, decisions in
                let streamed = PipelineResponse(head: head, cacheStatus: .miss, trace: decisions)
                Self.add(CacheStatusField.value(for: streamed, cacheName: cacheName, now: clock.now(), policy: policy), to: &head)
            }
        }
        var response = try await next(request, context)
        let member = CacheStatusField.value(for: response, cacheName: cacheName, now: context.now, policy: policy)
        Self.add(member, to: &response.head)
        return response
    }

    /// Adds this cache's member after any the origin or an upstream cache sent.
    private static func add(_ member: String, to head: inout HTTPResponse) {
        if let upstream = head.headerFields[CacheStatusField.name], !upstream.isEmpty {
            head.headerFields[CacheStatusField.name] = upstream + ", " + member
        } else {
            head.headerFields[CacheStatusField.name] = member
        }
    }
}
