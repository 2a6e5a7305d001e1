public import CacheChainCore
public import CacheChainPolicy

extension RedisStorage {
    /// The key of the digests that stand for secret request fields named by `Vary` (`VaryFields`),
    /// derived from the configuration every instance sharing the cache has in common: the `AUTH` password,
    /// the database and the namespace. Every instance therefore digests alike and finds the variants the
    /// others stored, and someone who reads a dump of Redis without the password can neither read those
    /// fields nor test guesses against their digests. (Without a password the digest is still one-way, but
    /// keyed only by the namespace: give Redis a password.)
    /// - Parameter key: The primary key (unused: one key per cache).
    /// - Returns: The derived key.
    public func varyDigestKey(for key: CacheKey) -> VaryDigestKey {
        derivedVaryDigestKey
    }

    /// ``varyDigestKey(for:)``, derived once per instance.
    static func deriveVaryDigestKey(_ configuration: Configuration) -> VaryDigestKey {
        let secret = "\(configuration.password ?? "")\u{0}\(configuration.database)\u{0}\(configuration.namespace)"
        return VaryDigestKey.derived(from: Array(secret.utf8))
    }
}
