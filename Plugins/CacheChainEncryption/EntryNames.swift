import CacheChainCore
import Foundation

/// The names an entry gets on the wrapped backend: HMAC-SHA256 digests, under the master key's naming key,
/// of the real cache key (the inner entry's key) and of the key plus variant (the inner variant key).
///
/// Deterministic, so a lookup finds the entry without decrypting anything; keyed, so nobody without the
/// master key can tell which URL an entry belongs to or test a guess. Each master key names entries
/// differently, so after a rotation lookups try the names of every provided key.
struct EntryNames: Sendable {
    /// The authority of every inner key; `.invalid` is reserved (RFC 2606), so it never meets a real host.
    static let authority = "encrypted.cachechain.invalid"

    /// 64 hex digits naming the cache key.
    let entry: String
    /// 64 hex digits naming the cache key and variant.
    let variant: String

    /// The names of a cache key's variant under a key.
    init(key: CacheKey, variantKey: String, under encryptionKey: EncryptionKey) throws(CacheChainError) {
        entry = try Self.named(key, under: encryptionKey).name
        var writer = Self.keyWriter(key, label: "variant")
        writer.string(variantKey)
        variant = Hex.encode(try HMACSHA256.authenticationCode(key: encryptionKey.namingKey, message: writer.bytes))
    }

    /// The names a stored inner entry carries.
    init(sealed: CacheEntry) {
        entry = String(sealed.key.path.dropFirst())
        variant = sealed.variantKey
    }

    /// The inner key these names use.
    var innerKey: CacheKey { Self.innerKey(entry) }

    /// The inner key of a cache key under a key (the variant is not needed for lookups).
    static func innerKey(for key: CacheKey, under encryptionKey: EncryptionKey) throws(CacheChainError) -> CacheKey {
        try named(key, under: encryptionKey).innerKey
    }

    /// The inner userInfo name that marks the entries of one target (method and URL, whatever the key's
    /// discriminator: the `QUERY`s of a URI), so that `EncryptedStorage.removeEntries(sameTargetAs:)` finds them
    /// through the wrapped backend's tag index: `cachechain-target-` + 32 hex digits (the URL is not in clear).
    static func targetTagName(_ key: CacheKey, under encryptionKey: EncryptionKey) throws(CacheChainError) -> String {
        var target = key
        target.discriminator = ""
        let digest = try HMACSHA256.authenticationCode(key: encryptionKey.namingKey, message: keyWriter(target, label: "target").bytes)
        return "cachechain-target-" + Hex.encode(Array(digest.prefix(16)))
    }

    /// Whether entries of this key carry a ``targetTagName(_:under:)``: a key with a discriminator or another
    /// method than `GET` (a target's plain `GET` key is removed by name).
    static func isTargetTagged(_ key: CacheKey) -> Bool {
        !key.discriminator.isEmpty || key.method != "GET"
    }

    /// The inner userInfo name that marks the entries of a cache group on an origin (RFC 9875), so that
    /// `EncryptedStorage.removeEntries(inGroups:origin:)` finds them through the wrapped backend's tag index:
    /// `cachechain-group-` + 32 hex digits of an HMAC of origin and group (neither is written in clear).
    static func groupTagName(origin: String, group: String, under encryptionKey: EncryptionKey) throws(CacheChainError) -> String {
        var writer = BinaryWriter(byteOrder: .bigEndian, capacity: 64 + origin.utf8.count + group.utf8.count)
        writer.string("group")
        writer.string(origin)
        writer.string(group)
        let digest = try HMACSHA256.authenticationCode(key: encryptionKey.namingKey, message: writer.bytes)
        return "cachechain-group-" + Hex.encode(Array(digest.prefix(16)))
    }

    /// The inner userInfo name that stands for a userInfo name: `cachechain-tag-` + 32 hex digits.
    static func tagName(_ name: String, under encryptionKey: EncryptionKey) throws(CacheChainError) -> String {
        var writer = BinaryWriter(byteOrder: .bigEndian, capacity: 256)
        writer.string("tag")
        writer.string(name)
        let digest = try HMACSHA256.authenticationCode(key: encryptionKey.namingKey, message: writer.bytes)
        return "cachechain-tag-" + Hex.encode(Array(digest.prefix(16)))
    }

    private static func innerKey(_ entry: String) -> CacheKey {
        var key = template
        key.path = "/" + entry  // already normal: no fragment, no case folding needed
        return key
    }

    private static let template = CacheKey(method: "GET", scheme: "https", authority: authority, path: "/")

    /// The entry name of a cache key under a key and the inner key it gives, remembered by the key
    /// (``DerivedKeyCache``).
    private static func named(_ key: CacheKey, under encryptionKey: EncryptionKey) throws(CacheChainError) -> DerivedKeyCache.NamedKey {
        try encryptionKey.derived.entryName(for: key) { () throws(CacheChainError) in
            let name = Hex.encode(try HMACSHA256.authenticationCode(key: encryptionKey.namingKey, message: keyWriter(key, label: "key").bytes))
            return DerivedKeyCache.NamedKey(name: name, innerKey: innerKey(name))
        }
    }

    /// The cache key's parts, each length-prefixed, so that no two keys encode alike.
    private static func keyWriter(_ key: CacheKey, label: String) -> BinaryWriter {
        var writer = BinaryWriter(byteOrder: .bigEndian, capacity: 64 + key.path.utf8.count + key.authority.utf8.count + key.discriminator.utf8.count)
        writer.string(label)
        writer.string(key.method)
        writer.string(key.scheme)
        writer.string(key.authority)
        writer.string(key.path)
        writer.string(key.discriminator)
        return writer
    }
}
