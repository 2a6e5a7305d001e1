extension CacheReason.Code {
    // MARK: Serving

    /// The stored response is fresh (RFC 9111 §4.2).
    public static let fresh = Self(rawValue: "fresh")
    /// The stored response is stale (RFC 9111 §4.2).
    public static let stale = Self(rawValue: "stale")
    /// The freshness lifetime comes from the `Last-Modified` heuristic (RFC 9111 §4.2.2).
    public static let heuristic = Self(rawValue: "heuristic")
    /// A stale response was served because the request's `max-stale` allows it (§5.2.1.2).
    public static let maxStale = Self(rawValue: "max-stale")
    /// The stored response is older than the request's `max-age` (§5.2.1.1).
    public static let requestMaxAge = Self(rawValue: "request-max-age")
    /// The stored response will not stay fresh for the request's `min-fresh` (§5.2.1.3).
    public static let minFresh = Self(rawValue: "min-fresh")
    /// The request's `no-cache` (or `Pragma: no-cache`) forces validation (§5.2.1.4, §5.4).
    public static let requestNoCache = Self(rawValue: "request-no-cache")
    /// The response's `no-cache` forces validation on every use (§5.2.2.4).
    public static let responseNoCache = Self(rawValue: "no-cache")
    /// `must-revalidate` (or, in a shared cache, `proxy-revalidate`/`s-maxage`) forbids serving it stale.
    public static let mustRevalidate = Self(rawValue: "must-revalidate")
    /// An `immutable` fresh response is served without revalidation despite the request (RFC 8246).
    public static let immutable = Self(rawValue: "immutable")
    /// A stale response was served while it is revalidated in the background (RFC 5861).
    public static let staleWhileRevalidate = Self(rawValue: "stale-while-revalidate")
    /// A stale response was served because the origin failed (RFC 5861 `stale-if-error`).
    public static let staleIfError = Self(rawValue: "stale-if-error")
    /// A stored response was served stale because the origin could not be reached (RFC 9111 §4.2.4;
    /// ``CachePolicyConfiguration/servesStaleWhenOriginUnreachable``).
    public static let originUnreachable = Self(rawValue: "origin-unreachable")
    /// `only-if-cached` could not be satisfied from the cache (§5.2.1.7).
    public static let onlyIfCached = Self(rawValue: "only-if-cached")
    /// Nothing is stored under the request's cache key.
    public static let noStoredResponse = Self(rawValue: "no-stored-response")
    /// Responses are stored, but none matches the request's `Vary`-nominated fields (§4.1).
    public static let varyMismatch = Self(rawValue: "vary-mismatch")
    /// The stored response has neither `ETag` nor `Last-Modified`, so it is fetched again, not validated.
    public static let noValidator = Self(rawValue: "no-validator")
    /// The request's cache policy decided (e.g. `reloadIgnoringLocalCacheData`).
    public static let policy = Self(rawValue: "policy")
    /// The request method is not served from or stored in the cache.
    public static let method = Self(rawValue: "method")
    /// An unsafe method (`POST`, `PUT`, `DELETE`…) goes to the origin.
    public static let unsafeMethod = Self(rawValue: "unsafe-method")
    /// A directive had an invalid value and was read conservatively (e.g. `max-age=-1` → stale).
    public static let invalidDirective = Self(rawValue: "invalid-directive")
    /// The request's `Host` field names another authority than its URL: it is neither answered from nor
    /// stored in the cache, whose key is the URL's (see ``CachePolicyEngine/hostMismatch(of:)``).
    public static let hostMismatch = Self(rawValue: "host-mismatch")

    // MARK: Storing

    /// The response was stored.
    public static let storable = Self(rawValue: "storable")
    /// A targeted cache-control field (`CDN-Cache-Control` or another of
    /// ``CachePolicyConfiguration/targetedCacheControlFields``) governs the response in this shared cache
    /// instead of `Cache-Control` and `Expires` (RFC 9213).
    public static let targeted = Self(rawValue: "targeted")
    /// `no-store` in the request or the response (§5.2.1.5, §5.2.2.5).
    public static let noStore = Self(rawValue: "no-store")
    /// The origin's message framing conflicted (`Transfer-Encoding` with `Content-Length`, RFC 9112 §6.3):
    /// the response was repaired and passed on, but not stored.
    public static let framing = Self(rawValue: "framing")
    /// `private` response in a shared cache (§5.2.2.7).
    public static let privateResponse = Self(rawValue: "private")
    /// The request carried `Authorization` and a shared cache may not store the answer (§3.5).
    public static let authorization = Self(rawValue: "authorization")
    /// The status code is not stored (interim, partial, or no explicit freshness and not cacheable by default).
    public static let status = Self(rawValue: "status")
    /// `Vary: *` never matches a later request, so the response is not stored (§4.1).
    public static let varyStar = Self(rawValue: "vary-star")
    /// The body is larger than the storage decision's limit (about 5% of capacity).
    public static let tooLarge = Self(rawValue: "too-large")
    /// The `willCacheResponse` hook vetoed storing.
    public static let vetoed = Self(rawValue: "vetoed")
    /// A storage backend failed; the request went on as a miss.
    public static let storageError = Self(rawValue: "storage-error")

    // MARK: Validation and invalidation

    /// A `304 Not Modified` freshened the stored response (§4.3.4).
    public static let revalidated = Self(rawValue: "revalidated")
    /// A `304 Not Modified` answered the request.
    public static let notModified = Self(rawValue: "not-modified")
    /// A stored response was removed because an unsafe request changed its resource (§4.4).
    public static let invalidated = Self(rawValue: "invalidated")
}
