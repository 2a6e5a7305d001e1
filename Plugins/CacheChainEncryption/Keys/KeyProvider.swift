/// Supplies the keys of an ``EncryptedStorage``: the current key for new entries and every key that
/// older entries may have been sealed with.
///
/// Each key has an ``EncryptionKey/id`` stored in clear in the entries it seals. Rotating keys means
/// making a new key current while still providing the old one: new entries use the new key and old entries
/// still open. An entry whose key is no longer provided can never be opened again (crypto-shredding).
///
/// Ready-made providers: ``InMemoryKeyProvider`` (keys held in memory, rotate and destroy at run time),
/// ``KeyFileProvider`` (keys in a mode-0600 file, created on first use) and ``EnvironmentKeyProvider``
/// (keys in an environment variable). Implementations must be fast: they are asked on every lookup and
/// store. Never log keys.
public protocol KeyProvider: Sendable {
    /// The key new entries are sealed with; `nil` when no key is available, in which case nothing is stored.
    var currentKey: EncryptionKey? { get }

    /// Every key entries may be sealed with, the current key first.
    var availableKeys: [EncryptionKey] { get }

    /// The key with an ID, when it is still provided.
    /// - Parameter id: An ``EncryptionKey/id`` read from an entry.
    /// - Returns: The key, or `nil` when it is not (or no longer) provided.
    func key(withID id: String) -> EncryptionKey?
}

extension KeyProvider {
    /// Default implementation: searches ``availableKeys``.
    /// - Parameter id: The key ID.
    /// - Returns: The key, or `nil`.
    /// - Complexity: O(number of keys).
    public func key(withID id: String) -> EncryptionKey? {
        availableKeys.first { $0.id == id }
    }
}

/// The current key and the older keys still accepted for reading: the state behind the mutable providers.
struct KeyRing: Sendable {
    var current: EncryptionKey?
    var previous: [EncryptionKey]

    var all: [EncryptionKey] { (current.map { [$0] } ?? []) + previous }

    /// Makes `key` current; the old current key stays readable.
    mutating func rotate(to key: EncryptionKey) {
        previous.removeAll { $0.id == key.id }
        if let current, current.id != key.id { previous.insert(current, at: 0) }
        current = key
    }

    /// Forgets a key. Returns whether it was present.
    mutating func remove(id: String) -> Bool {
        var removed = false
        if current?.id == id {
            current = nil
            removed = true
        }
        let count = previous.count
        previous.removeAll { $0.id == id }
        return removed || previous.count != count
    }
}
