/// Where a response came from.
public enum CacheStatus: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Served from the cache without contacting the origin (fresh, or allowed by the cache policy).
    case hit
    /// Fetched from the origin.
    case miss
    /// The origin confirmed the stored response with `304 Not Modified`; the stored body was served.
    case revalidated
    /// A stale stored response was served (`stale-while-revalidate`, `stale-if-error`, `max-stale`).
    case stale
    /// A stored response was served because the origin could not be reached or failed: `stale-if-error`, or
    /// RFC 9111 §4.2.4's stale response when the origin is unreachable (`CachePolicyConfiguration.servesStaleWhenOriginUnreachable`).
    case offline
    /// The cache was not consulted (unsafe method, or a policy that bypasses it).
    case bypass
    /// The cache could not answer and the network was not allowed (`only-if-cached` → 504).
    case unsatisfiable

    /// The raw value, e.g. `hit`.
    public var description: String { rawValue }

    /// Whether the body came from storage.
    public var isFromCache: Bool {
        switch self {
        case .hit, .revalidated, .stale, .offline: true
        case .miss, .bypass, .unsatisfiable: false
        }
    }
}
