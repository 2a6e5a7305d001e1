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
    public var body: PipelineBody
    /// Where the response came from.
    public var cacheStatus: CacheStatus
    /// Reason codes, in the order the interceptors added them.
    public var trace: [CacheReason]
    /// The `userInfo` of the cached response (empty for responses that were not stored).
    public var userInfo: CacheUserInfo
    /// Why this response must not be stored whatever its fields say, set by the transport or an inner
    /// interceptor that knows what its head no longer shows — e.g. a `framing` reason when the origin's
    /// message framing conflicted and the transport repaired the head. `StorageDecisionInterceptor` then
    /// stores nothing and adds the reason to the ``trace``; `nil` (the default) leaves the decision to it.
    public var storageVeto: CacheReason?
    /// The interim (1xx) responses the origin sent before this one, in order: `103 Early Hints` (with its
    /// `Link` fields), `100 Continue`, `102 Processing` and others, as the transport received them (status and
    /// fields, no body). They are never stored: a response served from the cache has none, and a revalidated
    /// one carries those of the `304` exchange. Empty (the default) when there were none or the transport does
    /// not report them (`CurlTransport` does).
    public var interimResponses: [HTTPResponse] = []

    /// Creates a response.
    /// - Parameters:
    ///   - head: The response head.
    ///   - body: The body; empty by default.
    ///   - cacheStatus: Where it came from; `.miss` by default (the network).
    ///   - trace: Initial reason codes.
    ///   - userInfo: Cached `userInfo`.
    ///   - storageVeto: A reason never to store the response; `nil` by default.
    public init(
        head: HTTPResponse,
        body: PipelineBody = .empty,
        cacheStatus: CacheStatus = .miss,
        trace: [CacheReason] = [],
        userInfo: CacheUserInfo = CacheUserInfo(),
        storageVeto: CacheReason? = nil
    ) {
        self.head = head
        self.body = body
        self.cacheStatus = cacheStatus
        self.trace = trace
        self.userInfo = userInfo
        self.storageVeto = storageVeto
    }
}
