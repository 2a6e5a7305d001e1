public import HTTPTypes

/// A request travelling down the interceptor chain.
///
/// A struct (not a tuple) so that new fields never break interceptors.
public struct PipelineRequest: Sendable, Hashable {
    /// The request head: method, scheme, authority, path and fields.
    public var head: HTTPRequest
    /// The request body, for methods that carry one.
    public var body: HTTPBody?
    /// What the cache's front door found and decided for this request, for the interceptors inside it;
    /// `nil` above it, or when no front door runs.
    public var cacheLookup: CacheLookup?
    /// How far this request lets its response be stored; `nil` (the default) sets no limit. Outer interceptors
    /// narrow it (`StorageLimit.capped(_:)`), the storage decision applies it.
    public var storageLimit: StorageLimit?

    /// Creates a request.
    /// - Parameters:
    ///   - head: The request head.
    ///   - body: An optional body.
    ///   - cacheLookup: The cache's lookup, when an interceptor hands one inward.
    ///   - storageLimit: How far the response may be stored; `nil` for no limit.
    public init(head: HTTPRequest, body: HTTPBody? = nil, cacheLookup: CacheLookup? = nil, storageLimit: StorageLimit? = nil) {
        self.head = head
        self.body = body
        self.cacheLookup = cacheLookup
        self.storageLimit = storageLimit
    }
}
