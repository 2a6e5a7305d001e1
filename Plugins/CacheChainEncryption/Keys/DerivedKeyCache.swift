import CacheChainCore

/// What hits derive again and again from one master key, kept with the key: the HMAC names of cache keys
/// (one HMAC-SHA256 per lookup otherwise), the HKDF subkeys of recently sealed or opened envelopes, found by
/// their random salt (one HKDF-SHA256 per open otherwise), and the decoded metadata of recently opened
/// envelopes (parsing every header field again otherwise). Together about 6 µs of a 1 KiB encrypted hit on
/// the reference machine.
///
/// Owned by the ``EncryptionKey`` it derives from, so it lives exactly as long as the key: when a provider
/// lets a key go (destroyed at logout, rotated out), the memo goes with it and every subkey and metadata
/// plaintext in it is wiped like the key itself (``SecureBytes`` cleanses its buffer on release; the decoded
/// header strings are released, not wiped — a running process is outside the threat model). Bounded, first
/// in first out: ``nameCapacity`` names, ``subkeyCapacity`` subkeys and ``metadataCapacity`` metadata.
final class DerivedKeyCache: Sendable {
    /// The most cache-key names kept.
    static let nameCapacity = 4096
    /// The most per-entry subkeys kept.
    static let subkeyCapacity = 1024
    /// The most decoded envelope metadata kept.
    static let metadataCapacity = 1024

    /// An envelope's metadata plaintext and what it decoded to. A class, so that taking it out of the memo
    /// is one retain rather than a copy of every field of the entry.
    private final class OpenedMetadata: Sendable {
        let plaintext: SecureBytes
        let entry: CacheEntry

        init(plaintext: SecureBytes, entry: CacheEntry) {
            self.plaintext = plaintext
            self.entry = entry
        }
    }

    /// A cache key's entry name and the inner key built from it. A class, so that taking it out of the memo
    /// is one retain.
    final class NamedKey: Sendable {
        /// The entry name (64 hex digits).
        let name: String
        /// The inner key with that name as its path.
        let innerKey: CacheKey

        init(name: String, innerKey: CacheKey) {
            self.name = name
            self.innerKey = innerKey
        }
    }

    private let names = LockedValue(BoundedMemo<CacheKey, NamedKey>(capacity: nameCapacity))
    private let subkeys = LockedValue(BoundedMemo<EnvelopeSalt, SubkeyContexts>(capacity: subkeyCapacity))
    private let metadata = LockedValue(BoundedMemo<EnvelopeSalt, OpenedMetadata>(capacity: metadataCapacity))

    /// The entry name of `key` and its inner key, computed by `compute` the first time.
    func entryName(
        for key: CacheKey,
        compute: () throws(CacheChainError) -> NamedKey
    ) throws(CacheChainError) -> NamedKey {
        if let known = names.withLock({ $0.value(for: key) }) { return known }
        let named = try compute()
        names.withLock { $0.insert(named, for: key) }
        return named
    }

    /// The subkey of the envelope with `salt` (with its kept decryption context), derived by `derive` the
    /// first time.
    func subkey(
        salt: [UInt8],
        derive: () throws(CacheChainError) -> SecureBytes
    ) throws(CacheChainError) -> SubkeyContexts {
        guard let salt = EnvelopeSalt(salt) else { return SubkeyContexts(subkey: try derive()) }
        return try subkey(salt: salt, derive: derive)
    }

    /// The subkey of the envelope with `salt` (with its kept decryption context), derived by `derive` the
    /// first time.
    func subkey(
        salt: EnvelopeSalt,
        derive: () throws(CacheChainError) -> SecureBytes
    ) throws(CacheChainError) -> SubkeyContexts {
        if let known = subkeys.withLock({ $0.value(for: salt) }) { return known }
        let subkey = SubkeyContexts(subkey: try derive())
        subkeys.withLock { $0.insert(subkey, for: salt) }
        return subkey
    }

    /// What the authenticated metadata `plaintext` of the envelope with `salt` decodes to: the kept
    /// decoding when the same envelope's metadata was decoded before and is byte for byte the same, else a
    /// fresh `EntryCodec` decoding (then kept).
    /// - Throws: `integrity-check-failed` when the metadata cannot be decoded.
    func metadata(salt: [UInt8], plaintext: [UInt8]) throws(CacheChainError) -> CacheEntry {
        guard let salt = EnvelopeSalt(salt) else {
            return try EntryCodec.decodeMetadata(plaintext, body: .empty, subject: PlaintextAssembler.subject)
        }
        return try plaintext.withBytes { (bytes) throws(CacheChainError) in try metadata(salt: salt, plaintext: bytes) }
    }

    /// What the authenticated metadata `plaintext` of the envelope with `salt` decodes to (see
    /// ``metadata(salt:plaintext:)-([UInt8],_)``); copies `plaintext` only when it decodes it afresh.
    /// - Throws: `integrity-check-failed` when the metadata cannot be decoded.
    func metadata(salt: EnvelopeSalt, plaintext: UnsafeRawBufferPointer) throws(CacheChainError) -> CacheEntry {
        if let known = metadata.withLock({ $0.value(for: salt) }),
           known.plaintext.withBytes({ kept in sameBytes(kept, plaintext) }) {
            return known.entry
        }
        let kept = SecureBytes(copying: plaintext)
        let decoded = try kept.withBytes { (bytes) throws(CacheChainError) in
            try EntryCodec.decodeMetadata(bytes, body: .empty, subject: PlaintextAssembler.subject)
        }
        let opened = OpenedMetadata(plaintext: kept, entry: decoded)
        metadata.withLock { $0.insert(opened, for: salt) }
        return decoded
    }

    /// How many names, subkeys and decoded metadata are kept (for tests).
    var counts: (names: Int, subkeys: Int, metadata: Int) {
        (names.withLock { $0.count }, subkeys.withLock { $0.count }, metadata.withLock { $0.count })
    }
}
