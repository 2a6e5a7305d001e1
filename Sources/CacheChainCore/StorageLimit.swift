/// The context key under which an outer interceptor caps how a response may be stored.
///
/// The storage-decision interceptor applies the cap after the `willCacheResponse` hook: the stricter of
/// the hook's ``StoragePolicy`` and this limit wins, so a plugin can keep responses in memory only (or out
/// of the cache) whatever the hook decides. The HTTPS-encryption plugin sets `.allowedInMemoryOnly` for
/// HTTPS responses when it is configured to keep them off disk.
///
/// ```swift
/// /// Keeps every response it passes in memory only, whatever the `willCacheResponse` hook decides.
/// struct MemoryOnly: HTTPInterceptor {
///     func intercept(_ request: PipelineRequest, context: InterceptorContext, next: Next) async throws -> PipelineResponse {
///         var context = context
///         context.values[StoragePolicyLimitKey.self] = .allowedInMemoryOnly
///         return try await next(request, context)
///     }
/// }
/// ```
public enum StoragePolicyLimitKey: ContextValueKey {
    /// The least strict policy a stored response may have.
    public typealias Value = StoragePolicy
}

extension StoragePolicy {
    /// How much this policy restricts storage: `allowed` 0, `allowedInMemoryOnly` 1, `notAllowed` 2.
    var strictness: Int {
        switch self {
        case .allowed: 0
        case .allowedInMemoryOnly: 1
        case .notAllowed: 2
        }
    }

    /// The stricter of this policy and `limit`.
    /// - Parameter limit: The cap, or `nil` for none.
    /// - Returns: `self` when it is at least as strict as `limit`, otherwise `limit`.
    public func capped(at limit: StoragePolicy?) -> StoragePolicy {
        guard let limit, limit.strictness > strictness else { return self }
        return limit
    }
}
