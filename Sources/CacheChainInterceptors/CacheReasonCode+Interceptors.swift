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
}
