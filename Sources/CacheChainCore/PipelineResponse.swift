public import CacheChainPolicy
public import HTTPTypes

/// A response travelling back up the interceptor chain, and what the client returns.
///
/// Besides the head and body it carries facts for outer interceptors and for the caller: the
/// ``cacheStatus``, the decision ``trace`` (reason codes saying why the response was or wasn't served from
/// cache and why it was or wasn't stored) and the cached response's ``userInfo``.
public struct PipelineResponse: Sendable, Hashable {
    /// The response head as the application sees it (for cached responses, with `Age` set).
    public var head: HTTPResponse
    /// The response body.
    public var body: HTTPBody
    /// Where the response came from.
    public var cacheStatus: CacheStatus
    /// Reason codes, in the order the interceptors added them.
    public var trace: [CacheReason]
    /// The `userInfo` of the cached response (empty for responses that were not stored).
    public var userInfo: CacheUserInfo

    /// Creates a response.
    /// - Parameters:
    ///   - head: The response head.
    ///   - body: The body; empty by default.
    ///   - cacheStatus: Where it came from; `.miss` by default (the network).
    ///   - trace: Initial reason codes.
    ///   - userInfo: Cached `userInfo`.
    public init(
        head: HTTPResponse,
        body: HTTPBody = .empty,
        cacheStatus: CacheStatus = .miss,
        trace: [CacheReason] = [],
        userInfo: CacheUserInfo = CacheUserInfo()
    ) {
        self.head = head
        self.body = body
        self.cacheStatus = cacheStatus
        self.trace = trace
        self.userInfo = userInfo
    }
}
