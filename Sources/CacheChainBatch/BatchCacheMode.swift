public import CacheChainPolicy

/// A request's `cache_mode`: the Fetch API's cache modes, mapped onto CacheChain's cache policies.
///
/// | `cache_mode` | `RequestCachePolicy` | Stores the response |
/// |---|---|---|
/// | `default` | `useProtocolCachePolicy` | as RFC 9111 allows |
/// | `reload` | `reloadIgnoringLocalCacheData` | as RFC 9111 allows |
/// | `no-store` | `reloadIgnoringLocalCacheData` | never |
/// | `no-cache` | `reloadRevalidatingCacheData` | as RFC 9111 allows |
/// | `force-cache` | `returnCacheDataElseLoad` | as RFC 9111 allows |
/// | `only-if-cached` | `returnCacheDataDontLoad` | — (never uses the network; a miss is a 504) |
public enum BatchCacheMode: String, Sendable, Hashable, CaseIterable {
    /// RFC 9111 decides.
    case `default` = "default"
    /// Ignore stored responses; the new response may be stored.
    case reload = "reload"
    /// Ignore stored responses and store nothing.
    case noStore = "no-store"
    /// Validate any stored response with the origin before using it.
    case noCache = "no-cache"
    /// Use any stored response whatever its age; the network only on a miss.
    case forceCache = "force-cache"
    /// Use any stored response; never the network.
    case onlyIfCached = "only-if-cached"

    /// The cache policy the request runs under.
    public var cachePolicy: RequestCachePolicy {
        switch self {
        case .default: .useProtocolCachePolicy
        case .reload, .noStore: .reloadIgnoringLocalCacheData
        case .noCache: .reloadRevalidatingCacheData
        case .forceCache: .returnCacheDataElseLoad
        case .onlyIfCached: .returnCacheDataDontLoad
        }
    }

    /// Whether the response may be stored (`false` only for `no-store`).
    public var isStoringAllowed: Bool { self != .noStore }
}
