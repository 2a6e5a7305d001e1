import CacheChainCore
import Foundation

/// One shard of ``MemoryStorage``: the keys that hash to it, in an exact least-recently-used order of its own.
///
/// A plain value, always used under its ``MemoryStorage``'s lock for the shard, so reads and stores of
/// different shards never wait for each other. Lookup, touch, insert and remove are O(1): a dictionary finds a
/// variant's slot in an intrusive linked list, which keeps the LRU order without a reordering scan.
struct MemoryShard {
    struct Slot {
        var entry: CacheEntry
        var cost: Int
        /// When the variant was last stored or returned (``useClock``): orders a key's variants for the
        /// per-key limit.
        var lastUse: UInt64
    }

    /// A variant removed by an eviction, to report once the lock is released.
    struct Eviction {
        var key: CacheKey
        var cost: Int
        var reason: String
    }

    private(set) var order = LRUList<Slot>()
    private var index: [CacheKey: [String: Int]] = [:]
    /// The sum of the shard's slot costs.
    private(set) var cost = 0
    private var useClock: UInt64 = 0

    /// The shard's live variants.
    var count: Int { order.count }

    /// Every key with a variant in the shard.
    var keys: Dictionary<CacheKey, [String: Int]>.Keys { index.keys }

    /// Returns the key's variants, most recently stored first, and marks them as the most recently used;
    /// variants for which `isPastRetention` holds are removed instead and returned as evictions.
    mutating func touch(_ key: CacheKey, isPastRetention: ((CacheEntry) -> Bool)? = nil) -> (found: [CacheEntry], dropped: [Eviction]) {
        guard let variants = index[key] else { return ([], []) }
        var found: [CacheEntry] = []
        var dropped: [Eviction] = []
        found.reserveCapacity(variants.count)
        for (variantKey, slot) in variants {
            guard var stored = order[slot] else { continue }
            if let isPastRetention, isPastRetention(stored.entry) {
                removeSlot(slot, key: key, variantKey: variantKey)
                dropped.append(Eviction(key: key, cost: stored.cost, reason: "stale-retention"))
                continue
            }
            order.moveToHead(slot)
            useClock += 1
            stored.lastUse = useClock
            order.replace(slot, with: stored)
            found.append(stored.entry)
        }
        guard found.count > 1 else { return (found, dropped) }
        return (found.sorted { $0.storedAt > $1.storedAt }, dropped)
    }

    /// Inserts an entry as the most recently used, replacing the variant with the same variant key, after
    /// evicting the key's least recently used variants until one more fits under `maximumVariants`.
    /// - Returns: The cost change of the shard, the count change, and the variant-limit evictions.
    mutating func insert(_ entry: CacheEntry, cost: Int, maximumVariants: Int) -> (cost: Int, count: Int, evicted: [Eviction]) {
        var costChange = cost
        var countChange = 1
        if let removed = remove(entry.key, variantKey: entry.variantKey) {
            costChange -= removed.cost
            countChange -= 1
        }
        var evicted: [Eviction] = []
        while let variants = index[entry.key], variants.count >= maximumVariants {
            var oldest: (variantKey: String, slot: Int, lastUse: UInt64)?
            for (variantKey, slot) in variants {
                guard let stored = order[slot] else { continue }
                if oldest.map({ stored.lastUse < $0.lastUse }) ?? true { oldest = (variantKey, slot, stored.lastUse) }
            }
            guard let oldest, let victim = removeSlot(oldest.slot, key: entry.key, variantKey: oldest.variantKey) else { break }
            costChange -= victim.cost
            countChange -= 1
            evicted.append(Eviction(key: entry.key, cost: victim.cost, reason: "variant-limit"))
        }
        useClock += 1
        let slot = order.insertAtHead(Slot(entry: entry, cost: cost, lastUse: useClock))
        index[entry.key, default: [:]][entry.variantKey] = slot
        self.cost += cost
        return (costChange, countChange, evicted)
    }

    /// Removes the least recently used variant, unless it is the only one left and `keepingLast` is set.
    mutating func evictLeastRecentlyUsed(keepingLast: Bool) -> Eviction? {
        let slot = order.tail
        guard slot >= 0, !(keepingLast && order.count == 1), let victim = order[slot] else { return nil }
        removeSlot(slot, key: victim.entry.key, variantKey: victim.entry.variantKey)
        return Eviction(key: victim.entry.key, cost: victim.cost, reason: "lru")
    }

    /// Removes every variant of a key and returns them.
    mutating func remove(_ key: CacheKey) -> [Slot] {
        guard let variants = index.removeValue(forKey: key) else { return [] }
        let removed = variants.values.compactMap { order.remove($0) }
        cost -= removed.reduce(0) { $0 + $1.cost }
        return removed
    }

    /// Removes one variant and returns it.
    mutating func remove(_ key: CacheKey, variantKey: String) -> Slot? {
        guard let slot = index[key]?[variantKey] else { return nil }
        return removeSlot(slot, key: key, variantKey: variantKey)
    }

    /// Removes a variant only if it is still the one stored at `storedAt` (a predicate judged it outside the lock).
    mutating func remove(_ key: CacheKey, variantKey: String, storedAt: Date) -> Slot? {
        guard let slot = index[key]?[variantKey], order[slot]?.entry.storedAt == storedAt else { return nil }
        return removeSlot(slot, key: key, variantKey: variantKey)
    }

    /// Removes a variant only if `shouldRemove` holds for it (judged under the lock: a group invalidation checks
    /// that the variant stored now still carries the group).
    mutating func remove(_ key: CacheKey, variantKey: String, if shouldRemove: (CacheEntry) -> Bool) -> Slot? {
        guard let slot = index[key]?[variantKey], let stored = order[slot], shouldRemove(stored.entry) else { return nil }
        return removeSlot(slot, key: key, variantKey: variantKey)
    }

    /// Every live entry.
    var entries: [CacheEntry] {
        index.values.flatMap { $0.values.compactMap { order[$0]?.entry } }
    }

    mutating func removeAll() {
        order.removeAll()
        index.removeAll()
        cost = 0
    }

    @discardableResult
    private mutating func removeSlot(_ slot: Int, key: CacheKey, variantKey: String) -> Slot? {
        let removed = order.remove(slot)
        if let removed { cost -= removed.cost }
        index[key]?[variantKey] = nil
        if index[key]?.isEmpty == true { index[key] = nil }
        return removed
    }
}
