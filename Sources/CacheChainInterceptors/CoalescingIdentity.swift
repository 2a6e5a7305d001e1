import CacheChainCore
import CacheChainPolicy
import HTTPTypes

/// What two requests must share for one response to be able to answer both (``CachePolicyInterceptor``'s coalescing).
///
/// The method and the cache key; the request's cache policy, timeout and storage limit (a request that
/// may not store, or gives up sooner, does not wait on one that may); and the values of the request fields
/// that change what the cache or the origin answers whatever the response's `Vary` says: `Cache-Control`,
/// `Pragma`, the conditional fields, `Range`, `Authorization` and `Cookie`. Fields a `Vary` may name are
/// checked later, against the shared response.
struct CoalescingIdentity: Hashable, Sendable {
    let method: HTTPRequest.Method
    let key: CacheKey
    let cachePolicy: RequestCachePolicy
    let storageLimit: StorageLimit?
    let timeout: Duration?
    let fields: [String]

    /// The request fields compared as they are.
    static let comparedFields: [HTTPField.Name] = [
        .cacheControl, .pragma, .ifNoneMatch, .ifModifiedSince, .ifMatch, .ifUnmodifiedSince, .ifRange, .range,
        .authorization, .cookie,
    ]

    /// Hashes the key alone (its path and authority): every request passes here, and requests in flight at
    /// the same time with the same key but different policies or fields are rare. Equality compares all.
    func hash(into hasher: inout Hasher) {
        hasher.combine(key)
    }

    init(_ pipelineRequest: PipelineRequest, key: CacheKey) {
        let request = pipelineRequest.head
        method = request.method
        self.key = key
        cachePolicy = pipelineRequest.effectiveCachePolicy
        storageLimit = pipelineRequest.storageLimit
        timeout = pipelineRequest.timeout
        var fields: [String] = []
        for name in Self.comparedFields where request.headerFields.contains(name) {
            fields.append(name.canonicalName)
            fields += request.headerFields[values: name]
        }
        self.fields = fields
    }
}
