public import CacheChainPolicy
import HTTPTypes

/// A request's `cache_mode`: the Fetch API's cache modes, mapped onto CacheChain's cache policies.
///
/// | `cache_mode` | `RequestCachePolicy` | Stores the response |
/// |---|---|---|
/// | `default` | `useProtocolCachePolicy` | as RFC 9111 allows |
/// | `reload` | `reloadIgnoringLocalCacheData`, and `Pragma`/`Cache-Control: no-cache` sent | as RFC 9111 allows |
/// | `no-store` | `reloadIgnoringLocalCacheData`, and `Pragma`/`Cache-Control: no-cache` sent | never |
/// | `no-cache` | `reloadRevalidatingCacheData`, and `Cache-Control: max-age=0` sent | as RFC 9111 allows |
/// | `force-cache` | `returnCacheDataElseLoad` | as RFC 9111 allows |
/// | `only-if-cached` | `returnCacheDataDontLoad` | — (never uses the network; a miss is a 504) |
///
/// `no-cache` is the Fetch standard's: any stored response, fresh or stale, is validated with the origin before
/// use (a conditional request when it has a validator), a normal request is made when nothing is stored, and the
/// answer updates the cache — except a fresh `immutable` response, which is served without revalidation
/// (RFC 8246: `no-cache` is a reload, which asks for revalidation; trace code `immutable`); `reload` and
/// `no-store`, forced reloads, fetch it again. As Fetch's HTTP-network-or-cache fetch
/// does, a request without a `Cache-Control` field is sent with `Cache-Control: max-age=0`, so caches between
/// here and the origin revalidate too; a `Cache-Control` the caller sent is left alone. Likewise `reload` and
/// `no-store` send `Pragma: no-cache` and `Cache-Control: no-cache` unless the caller sent those fields.
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

    /// The header fields a request is sent with in this mode, from the caller's, as the Fetch standard's
    /// HTTP-network-or-cache fetch adds them: `no-cache` appends `Cache-Control: max-age=0` when the caller
    /// sent no `Cache-Control`; `reload` and `no-store` append `Pragma: no-cache` when the caller sent no
    /// `Pragma` and `Cache-Control: no-cache` when the caller sent no `Cache-Control`; the other modes send
    /// the caller's fields unchanged.
    /// - Parameter fields: The caller's fields.
    /// - Returns: The fields to send.
    func requestFields(_ fields: HTTPFields) -> HTTPFields {
        var sent = fields
        switch self {
        case .noCache:
            if !fields.contains(.cacheControl) { sent.append(HTTPField(name: .cacheControl, value: "max-age=0")) }
        case .reload, .noStore:
            if !fields.contains(.pragma) { sent.append(HTTPField(name: .pragma, value: "no-cache")) }
            if !fields.contains(.cacheControl) { sent.append(HTTPField(name: .cacheControl, value: "no-cache")) }
        case .default, .forceCache, .onlyIfCached:
            break
        }
        return sent
    }
}
