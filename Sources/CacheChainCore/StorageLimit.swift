/// How far a request lets its response be stored: the one "don't store" knob, carried on
/// ``PipelineRequest/storageLimit`` (`nil`: no limit).
///
/// The storage decision reads it once, first, and applies it at the step its case names:
/// - ``refused``: nothing is proposed. Storability, the size rule and the `willCacheResponse` hooks are skipped
///   and the trace says "this request does not store responses" (Fetch's `no-store` mode; URLSession without a
///   cache).
/// - ``capped(_:)``: the response is proposed and the hooks run; then the stricter of their ``StoragePolicy`` and
///   the cap is stored, so a plugin keeps responses in memory only, or out of the cache, whatever the hooks
///   decide. The HTTPS-encryption plugin caps HTTPS responses this way.
///
/// ```swift
/// /// Keeps every response it passes in memory only, whatever the `willCacheResponse` hook decides.
/// struct MemoryOnly: HTTPInterceptor {
///     func intercept(_ request: PipelineRequest, context: InterceptorContext, next: Next) async throws -> PipelineResponse {
///         var request = request
///         request.storageLimit = request.storageLimit.capped(at: .allowedInMemoryOnly)
///         return try await next(request, context)
///     }
/// }
/// ```
public enum StorageLimit: Sendable, Hashable {
    /// The response is not offered for storage at all.
    case refused
    /// The response is offered; what is stored is at most as permissive as this policy.
    case capped(StoragePolicy)
}

extension StorageLimit? {
    /// This limit narrowed by a cap: `refused` stays refused, and of two caps the stricter wins.
    /// - Parameter policy: The cap to add.
    /// - Returns: The combined limit.
    public func capped(at policy: StoragePolicy) -> StorageLimit {
        switch self {
        case .refused?: .refused
        case .capped(let current)?: .capped(current.capped(at: policy))
        case nil: .capped(policy)
        }
    }
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
