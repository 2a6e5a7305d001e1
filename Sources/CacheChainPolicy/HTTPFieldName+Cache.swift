public import HTTPTypes

extension HTTPField.Name {
    /// `Pragma` (RFC 9111 §5.4), which swift-http-types does not predefine: deprecated, but still read
    /// for `no-cache` and sent by `reloadIgnoringLocalAndRemoteCacheData`.
    public static let pragma = HTTPField.Name("Pragma")!  // invariant: "Pragma" is a valid token, so this cannot fail
}

extension HTTPField.Name {
    /// `CDN-Cache-Control` (RFC 9213 §3), the targeted cache-control field for CDN caches: a shared cache
    /// reads it instead of `Cache-Control` when it is in ``CachePolicyConfiguration/targetedCacheControlFields``.
    public static let cdnCacheControl = HTTPField.Name("CDN-Cache-Control")!  // invariant: a valid token, so this cannot fail
}
