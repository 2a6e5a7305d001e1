/// The secret key of the digests that stand for secret request fields (`Authorization`,
/// `Proxy-Authorization`, `Cookie`) when a response's `Vary` names them.
///
/// A stored entry never holds those fields' values: when `Vary` names one, the entry keeps
/// `HMAC-SHA256(key, field name · value)` instead, and a new request matches the entry when its own value
/// gives the same digest (see ``VaryFields``). Without the key, a digest neither reveals the value nor lets
/// anyone test guesses against it.
///
/// Each backend says which key its entries use (`CacheStorage.varyDigestKey(for:)`): a `DiskStorage`
/// keeps a random one in its directory (mode 0600, shared by every process that opens it), a `RedisStorage`
/// one from its configuration, and in-memory backends the key of the process (``perProcess``).
///
/// ```swift
/// let key = VaryDigestKey.random()
/// let same = VaryDigestKey(bytes: key.bytes)
/// ```
///
/// The key's bytes never appear in a description.
public struct VaryDigestKey: Sendable, Hashable, CustomStringConvertible {
    /// The 32 key bytes.
    public let bytes: [UInt8]

    /// Creates a key from its bytes.
    /// - Parameter bytes: 32 bytes (a programming error otherwise), e.g. from a secret store or a key file.
    public init(bytes: [UInt8]) {
        precondition(bytes.count == 32, "a VaryDigestKey has 32 bytes, got \(bytes.count)")
        self.bytes = bytes
    }

    /// Derives a key from a secret of any length (SHA-256 of a label and the secret), e.g. a password that
    /// every instance sharing a cache already knows.
    /// - Parameter secret: The secret's bytes.
    /// - Returns: The derived key.
    public static func derived(from secret: some Sequence<UInt8>) -> VaryDigestKey {
        var hasher = SHA256()
        hasher.update("cachechain vary digest key\u{0}".utf8)
        hasher.update(secret)
        return VaryDigestKey(bytes: hasher.finalize())
    }

    /// A new random key from the system's random number generator.
    /// - Returns: The key.
    public static func random() -> VaryDigestKey {
        var generator = SystemRandomNumberGenerator()
        return VaryDigestKey(bytes: (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// The random key of this process: what backends that keep nothing beyond the process use (memory),
    /// and what an entry or engine made without a key uses.
    public static let perProcess = VaryDigestKey.random()

    /// A description without the key bytes.
    public var description: String { "VaryDigestKey(32 bytes)" }
}
