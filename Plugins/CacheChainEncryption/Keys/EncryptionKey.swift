public import CacheChainCore

/// A 256-bit master key and its identifier: what a ``KeyProvider`` hands to ``EncryptedStorage``.
///
/// The key bytes live in a buffer of their own that is wiped with `OPENSSL_cleanse` when the last copy of
/// the key is released. They never appear in ``description``, in `debugDescription`, in a mirror (`dump`)
/// or in a log: only the ``id`` does.
///
/// The ``id`` is written in clear in every entry sealed with the key, so that a reader knows which key
/// opens it. By default it is derived from the key (16 hex digits of an HKDF output): a different key
/// gets a different ID, and the ID reveals nothing about the key.
///
/// ```swift
/// let key = try EncryptionKey.random()                    // for tests and in-memory caches
/// let fromBytes = try EncryptionKey(bytes: thirtyTwoBytes, id: "2025-06")
/// ```
public struct EncryptionKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The key's identifier, stored in clear in each entry sealed with it.
    public let id: String
    let material: SecureBytes
    /// HKDF(master, info: "CacheChain names v1"): the HMAC key that names entries on the inner backend.
    let namingKey: SecureBytes

    /// Entry names and per-entry subkeys already derived from this key; released (and wiped) with it.
    let derived: DerivedKeyCache

    /// The key length in bytes.
    public static let byteCount = 32

    /// Creates a key from 32 bytes.
    /// - Parameters:
    ///   - bytes: Exactly 32 bytes of secret, uniformly random key material.
    ///   - id: The identifier (1–64 ASCII letters, digits, `-`, `_` or `.`); by default derived from the key.
    /// - Throws: `CacheChainError.Code.invalidConfiguration` for a wrong length or an invalid ID.
    public init(bytes: some Collection<UInt8>, id: String? = nil) throws(CacheChainError) {
        var copy = Array(bytes)
        defer { wipe(&copy) }
        guard copy.count == Self.byteCount else {
            throw CacheChainError(.invalidConfiguration, "an encryption key must be 32 bytes, got \(copy.count)")
        }
        let material = SecureBytes(copy)
        try self.init(material: material, id: id)
    }

    init(material: SecureBytes, id: String?) throws(CacheChainError) {
        self.material = material
        derived = DerivedKeyCache()
        namingKey = try HKDFSHA256.deriveKey(
            from: material, salt: UnsafeRawBufferPointer(start: nil, count: 0), info: Array("CacheChain names v1".utf8), byteCount: 32
        )
        if let id {
            guard Self.isValidID(id) else {
                throw CacheChainError(.invalidConfiguration, "an encryption key ID must be 1–64 characters among A–Z a–z 0–9 - _ . (got \(id.utf8.count) bytes)")
            }
            self.id = id
        } else {
            let digest = try HKDFSHA256.deriveKey(
                from: material, salt: UnsafeRawBufferPointer(start: nil, count: 0), info: Array("CacheChain key id v1".utf8), byteCount: 8
            )
            self.id = digest.withBytes { Hex.encode($0) }
        }
    }

    /// Creates a key from fresh random bytes (OpenSSL's `RAND_bytes`).
    /// - Parameter id: The identifier; by default derived from the key.
    /// - Returns: The key.
    /// - Throws: `CacheChainError` when the random generator fails or the ID is invalid.
    public static func random(id: String? = nil) throws(CacheChainError) -> EncryptionKey {
        let material = try SecureBytes(count: byteCount) { (buffer) throws(CacheChainError) in try SecureRandom.fill(buffer) }
        return try EncryptionKey(material: material, id: id)
    }

    /// Creates a key from its text form: 64 hexadecimal digits or the standard base64 of 32 bytes
    /// (44 characters with `=` padding), surrounding whitespace ignored.
    /// - Parameters:
    ///   - text: The encoded key.
    ///   - id: The identifier; by default derived from the key.
    /// - Throws: `CacheChainError.Code.invalidConfiguration` when the text is not a 32-byte key.
    public init(encoded text: some StringProtocol, id: String? = nil) throws(CacheChainError) {
        guard var bytes = KeyText.decode(text) else {
            throw CacheChainError(
                .invalidConfiguration,
                "an encoded encryption key must be 64 hex digits or the base64 of 32 bytes (\(text.count) characters given)"
            )
        }
        defer { wipe(&bytes) }
        try self.init(bytes: bytes, id: id)
    }

    /// Whether two values hold the same key bytes (compared in constant time) and ID.
    /// - Parameter other: The other key.
    /// - Returns: `true` when they are the same key.
    public func isSameKey(as other: EncryptionKey) -> Bool {
        id == other.id && material.isEqual(to: other.material)
    }

    /// `EncryptionKey(id: …)`: never the key bytes.
    public var description: String { "EncryptionKey(id: \(id))" }
    /// Same as ``description``.
    public var debugDescription: String { description }
    /// A mirror that shows the ID only.
    public var customMirror: Mirror { Mirror(self, children: ["id": id]) }

    static func isValidID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == 0x2D || byte == 0x5F || byte == 0x2E
        }
    }
}
