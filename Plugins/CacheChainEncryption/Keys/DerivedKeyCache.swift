import CacheChainCore
import Synchronization

/// What hits derive again and again from one master key, kept with the key: the HMAC names of cache keys
/// (one HMAC-SHA256 per lookup otherwise) and the HKDF subkeys of recently sealed or opened envelopes,
/// found by their random salt (one HKDF-SHA256 per open otherwise). Together about 3.5 µs of a 1 KiB
/// encrypted hit on the reference machine.
///
/// Owned by the ``EncryptionKey`` it derives from, so it lives exactly as long as the key: when a provider
/// lets a key go (destroyed at logout, rotated out), the memo goes with it and every subkey in it is wiped
/// like the key itself (``SecureBytes`` cleanses its buffer on release). Bounded, first in first out:
/// ``nameCapacity`` names and ``subkeyCapacity`` subkeys.
final class DerivedKeyCache: Sendable {
    /// The most cache-key names kept.
    static let nameCapacity = 4096
    /// The most per-entry subkeys kept.
    static let subkeyCapacity = 1024

    private let names = Mutex(BoundedMemo<CacheKey, String>(capacity: nameCapacity))
    private let subkeys = Mutex(BoundedMemo<[UInt8], SecureBytes>(capacity: subkeyCapacity))

    /// The entry name of `key`, computed by `compute` the first time.
    func entryName(
        for key: CacheKey,
        compute: () throws(CacheChainError) -> String
    ) throws(CacheChainError) -> String {
        if let known = names.withLock({ $0.value(for: key) }) { return known }
        let name = try compute()
        names.withLock { $0.insert(name, for: key) }
        return name
    }

    /// The subkey of the envelope with `salt`, derived by `derive` the first time.
    func subkey(
        salt: [UInt8],
        derive: () throws(CacheChainError) -> SecureBytes
    ) throws(CacheChainError) -> SecureBytes {
        if let known = subkeys.withLock({ $0.value(for: salt) }) { return known }
        let subkey = try derive()
        subkeys.withLock { $0.insert(subkey, for: salt) }
        return subkey
    }

    /// How many names and subkeys are kept (for tests).
    var counts: (names: Int, subkeys: Int) {
        (names.withLock { $0.count }, subkeys.withLock { $0.count })
    }
}

/// A dictionary that forgets its oldest insertion once it holds `capacity` values. O(1) per call.
struct BoundedMemo<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private var values: [Key: Value] = [:]
    private var order: [Key] = []
    private var oldest = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var count: Int { values.count }

    func value(for key: Key) -> Value? {
        values[key]
    }

    mutating func insert(_ value: Value, for key: Key) {
        if values.updateValue(value, forKey: key) != nil { return }
        if order.count < capacity {
            order.append(key)
            return
        }
        values[order[oldest]] = nil
        order[oldest] = key
        oldest = (oldest + 1) % capacity
    }
}
