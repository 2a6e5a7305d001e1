public import CacheChainPolicy

extension CacheReason.Code {
    /// The response was shared with an identical request in flight (``CachePolicyInterceptor``'s coalescing).
    public static let coalesced = CacheReason.Code(rawValue: "coalesced")

    /// The response is the end of a redirect chain followed by ``RedirectInterceptor``.
    public static let redirected = CacheReason.Code(rawValue: "redirected")

    /// A ``PolicyOverrideRule`` changed what the cache does (its detail names the rule and the change).
    public static let policyOverride = CacheReason.Code(rawValue: "override")

    /// ``CachePolicyInterceptor`` answered a `Range` request from a stored response, or sent it on (its
    /// detail says which and why).
    public static let range = CacheReason.Code(rawValue: "range")

    /// ``CachePolicyInterceptor`` keyed a `POST` or `QUERY` by its body (its detail names the rule), or
    /// left it uncached (body too large).
    public static let bodyKeyed = CacheReason.Code(rawValue: "body-keyed")

    /// ``StorageDecisionInterceptor`` considered a `POST`'s response for a later `GET` of its URI: it has explicit
    /// freshness and a `Content-Location` equal to the request's target URI (RFC 9110 §9.3.3); `storable`
    /// follows when it was stored.
    public static let contentLocation = CacheReason.Code(rawValue: "content-location")

    /// ``CachePolicyInterceptor`` keyed a `QUERY` by its content, normalised for its media type (RFC 10008 §2.7),
    /// or left it uncached (content over 64 KiB, or not in memory).
    public static let query = CacheReason.Code(rawValue: "query")
}
