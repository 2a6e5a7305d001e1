/// Whether the cache is private to one user (the default, like URLCache) or shared between users.
///
/// RFC 9111 gives shared caches stricter rules: `private` responses and responses to requests with
/// `Authorization` are not stored (§3.5), `s-maxage` overrides `max-age` and implies `proxy-revalidate`.
public enum CacheMode: String, Sendable, Hashable, Codable {
    /// A cache used by a single user: `private` responses are stored, `s-maxage` is ignored.
    case privateCache
    /// A cache shared between users, such as a gateway or a fleet-wide cache.
    case sharedCache
}
