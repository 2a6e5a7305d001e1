import CacheChainCore
import CacheChainPolicy

/// The stored variants the cache-policy interceptor wants the origin to confirm, handed to the
/// revalidation interceptor through the context.
struct ValidationCandidates: Sendable {
    /// The stored variants a `304 Not Modified` may freshen.
    var entries: [CacheEntry]
    /// Whether the application's request carried its own validators (its 304 must reach it untouched).
    var isApplicationConditional: Bool
}

/// Context key for ``ValidationCandidates``.
enum ValidationCandidatesKey: ContextValueKey {
    typealias Value = ValidationCandidates
}
