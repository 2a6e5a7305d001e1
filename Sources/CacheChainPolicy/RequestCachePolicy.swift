/// What a request may do with the cache: Apple's `NSURLRequest.CachePolicy`, every case implemented.
///
/// Set it per request or as the client default (like `URLSessionConfiguration.requestCachePolicy`).
/// Apple leaves ``reloadIgnoringLocalAndRemoteCacheData`` and ``reloadRevalidatingCacheData``
/// unimplemented; CacheChain implements both.
public enum RequestCachePolicy: String, Sendable, Hashable, Codable, CaseIterable {
    /// RFC 9111 decides: fresh responses are served, stale ones are revalidated with a conditional `GET`.
    case useProtocolCachePolicy
    /// Stored responses are ignored; the response from the origin may still be stored.
    case reloadIgnoringLocalCacheData
    /// Like ``reloadIgnoringLocalCacheData``, and the request carries `Cache-Control: no-cache` and
    /// `Pragma: no-cache` so that intermediaries do not answer from their caches either.
    case reloadIgnoringLocalAndRemoteCacheData
    /// A stored response is used whatever its age; the origin is contacted only when nothing is stored.
    case returnCacheDataElseLoad
    /// A stored response is used whatever its age; without one the request fails with `not-in-cache`.
    /// The network is never used.
    case returnCacheDataDontLoad
    /// A stored response is always validated with the origin (a conditional `GET`) before it is used.
    case reloadRevalidatingCacheData
}
