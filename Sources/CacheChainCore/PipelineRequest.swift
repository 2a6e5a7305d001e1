public import CacheChainPolicy
public import HTTPTypes

/// A request travelling down the interceptor chain.
///
/// A struct (not a tuple) so that new fields never break interceptors. Like `URLRequest`, it carries its own
/// cache policy and timeout; what the whole chain shares (storage, engine, clock) is on `InterceptorContext`.
public struct PipelineRequest: Sendable, Hashable {
    /// The request head: method, scheme, authority, path and fields.
    public var head: HTTPRequest
    /// The request body, for methods that carry one.
    public var body: PipelineBody?
    /// The cache policy for this request (`URLRequest.cachePolicy`); `nil` (the default) leaves it to whoever
    /// runs the chain: `HTTPCacheClient` sets its configuration's default before the first interceptor, and an
    /// interceptor run without a client reads `nil` as `RequestCachePolicy.useProtocolCachePolicy`.
    public var cachePolicy: RequestCachePolicy?
    /// Give up on the network after this long (`URLRequest.timeoutInterval`); `nil`: the client's configured
    /// timeout, else the transport's default.
    public var timeout: Duration?
    /// The cache's one answer for this request (``CachePlan``), for the interceptors inside the cache's front door;
    /// `nil` above it, or when no front door runs.
    public var cachePlan: CachePlan?
    /// How far this request lets its response be stored; `nil` (the default) sets no limit. Outer interceptors
    /// narrow it (`StorageLimit.capped(_:)`), the storage decision applies it.
    public var storageLimit: StorageLimit?

    /// Creates a request.
    /// - Parameters:
    ///   - head: The request head.
    ///   - body: An optional body.
    ///   - cachePolicy: The request's cache policy; `nil` for the client's default.
    ///   - timeout: The request's network timeout; `nil` for the client's or the transport's default.
    ///   - cachePlan: The cache's plan, when an interceptor hands one inward.
    ///   - storageLimit: How far the response may be stored; `nil` for no limit.
    public init(
        head: HTTPRequest,
        body: PipelineBody? = nil,
        cachePolicy: RequestCachePolicy? = nil,
        timeout: Duration? = nil,
        cachePlan: CachePlan? = nil,
        storageLimit: StorageLimit? = nil
    ) {
        self.head = head
        self.body = body
        self.cachePolicy = cachePolicy
        self.timeout = timeout
        self.cachePlan = cachePlan
        self.storageLimit = storageLimit
    }

    /// The former name of ``cachePlan``.
    @available(*, deprecated, renamed: "cachePlan")
    public var cacheLookup: CachePlan? {
        get { cachePlan }
        set { cachePlan = newValue }
    }

    /// The cache policy the chain applies: ``cachePolicy``, or `RequestCachePolicy.useProtocolCachePolicy`
    /// when it is unset.
    public var effectiveCachePolicy: RequestCachePolicy { cachePolicy ?? .useProtocolCachePolicy }
}
