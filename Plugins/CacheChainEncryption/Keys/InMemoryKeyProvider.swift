import CacheChainCore

/// Keys held in memory only: for caches that must not survive the process, for tests, and for keys an
/// application fetches from its own secret store (a keychain, a KMS) at start-up.
///
/// ```swift
/// let keys = InMemoryKeyProvider(key: try .random())
/// let storage = EncryptedStorage(wrapping: MemoryStorage(), keys: keys)
/// keys.rotate(to: try .random())            // new entries use the new key, old ones still open
/// keys.destroyKey(withID: oldID)            // crypto-shredding: entries sealed with it are gone for good
/// ```
public final class InMemoryKeyProvider: KeyProvider {
    private let ring: LockedValue<KeyRing>

    /// Creates a provider.
    /// - Parameters:
    ///   - key: The current key.
    ///   - previousKeys: Older keys whose entries must still open, newest first.
    public init(key: EncryptionKey, previousKeys: [EncryptionKey] = []) {
        ring = LockedValue(KeyRing(current: key, previous: previousKeys.filter { $0.id != key.id }))
    }

    /// The current key; `nil` after ``destroyKey(withID:)`` destroyed it.
    public var currentKey: EncryptionKey? { ring.withLock { $0.current } }

    /// The current key, then the older ones.
    public var availableKeys: [EncryptionKey] { ring.withLock { $0.all } }

    /// Makes `key` the key of new entries; the previous current key stays available for reading.
    /// - Parameter key: The new current key.
    public func rotate(to key: EncryptionKey) {
        ring.withLock { $0.rotate(to: key) }
    }

    /// Forgets a key: every entry sealed with it becomes unreadable for good (crypto-shredding). Its bytes
    /// are wiped once the last operation using them finishes. Destroying the current key leaves no current
    /// key: nothing is stored until ``rotate(to:)`` provides one.
    /// - Parameter id: The key's ID.
    /// - Returns: Whether a key had that ID.
    @discardableResult
    public func destroyKey(withID id: String) -> Bool {
        ring.withLock { $0.remove(id: id) }
    }
}
