public import CacheChainCore
public import CacheChainPolicy
public import Foundation

/// An in-memory backend with a byte (cost) limit, a count limit and true least-recently-used eviction.
///
/// Lookup, touch (every successful read marks the variants it returns as recently used), insert and
/// remove are O(1): a dictionary finds a variant's slot in an intrusive linked list, which keeps the LRU
/// order without any reordering scan. Eviction removes least-recently-used variants until both limits
/// hold and reports each with a `CacheEvent.Kind.evicted` event. An entry costlier than the whole
/// capacity is not stored (and evicts nothing). `.notAllowed` entries are never kept; `.allowed` and
/// `.allowedInMemoryOnly` both are.
///
/// ```swift
/// let storage = MemoryStorage(capacity: 50 * 1024 * 1024, countLimit: 10_000)
/// ```
public actor MemoryStorage: CacheStorage {
    private struct Slot {
        var entry: CacheEntry
        var cost: Int
        /// When the variant was last stored or returned (``useClock``): orders a key's variants for the
        /// per-key limit.
        var lastUse: UInt64
    }

    private var order = LRUList<Slot>()
    private var index: [CacheKey: [String: Int]] = [:]
    private var totalCost = 0
    private var useClock: UInt64 = 0
    private let events: CacheEventSink

    /// The byte limit.
    public private(set) var capacity: Int
    /// The maximum number of stored variants.
    public let countLimit: Int
    /// The largest entry (`CacheEntry.cost`) kept; larger ones are not stored. Like `URLCache`, which keeps
    /// out of memory any response above a fraction of the capacity, this stops one huge download from
    /// evicting everything else.
    public let maximumEntryCost: Int
    /// The most variants (`Vary` selections) kept for one key: storing another evicts the key's least
    /// recently used variant (an `CacheEvent.Kind.evicted` event with the reason `variant-limit`).
    public let maximumVariantsPerKey: Int
    /// How long a stale entry is kept beyond what its own `stale-while-revalidate`/`stale-if-error` allow
    /// (`CacheEntry.isPastRetention(_:at:)`, the Redis backend's rule); `nil` (the default) keeps stale entries
    /// until they are evicted or removed. A lookup drops an entry past it (an `CacheEvent.Kind.evicted` event
    /// with the reason `stale-retention`).
    public let staleRetention: Duration?
    private let clock: any CacheClock

    /// Creates an empty memory backend.
    /// - Parameters:
    ///   - capacity: The byte limit (sum of `CacheEntry.cost`); 10 MiB by default.
    ///   - countLimit: The maximum number of variants; unlimited by default.
    ///   - maximumEntryCost: The largest entry kept; by default the whole capacity.
    ///   - maximumVariantsPerKey: The most variants kept per key; 32 by default, at least 1.
    ///   - staleRetention: The longest a stale entry is kept (see ``staleRetention``); unlimited by default.
    ///   - clock: The clock ``staleRetention`` is measured with; the system's by default.
    ///   - events: Receives an `CacheEvent.Kind.evicted` event per evicted variant and a
    ///     `CacheEvent.Kind.storageError` event when a file-backed body cannot be read.
    public init(
        capacity: Int = 10 * 1024 * 1024,
        countLimit: Int = .max,
        maximumEntryCost: Int? = nil,
        maximumVariantsPerKey: Int = 32,
        staleRetention: Duration? = nil,
        clock: any CacheClock = SystemClock(),
        events: CacheEventSink = .none
    ) {
        self.staleRetention = staleRetention
        self.clock = clock
        self.capacity = max(0, capacity)
        self.countLimit = max(0, countLimit)
        self.maximumEntryCost = max(0, maximumEntryCost ?? capacity)
        self.maximumVariantsPerKey = max(1, maximumVariantsPerKey)
        self.events = events
    }

    /// Returns the variants stored for a key, most recently stored first, and marks them recently used;
    /// variants past ``staleRetention`` are removed instead.
    /// - Parameter key: The primary key.
    /// - Returns: The variants.
    /// - Complexity: O(v log v) for v variants of the key (at most ``maximumVariantsPerKey``); independent of
    ///   the number of keys.
    public func entries(for key: CacheKey) -> [CacheEntry] {
        guard let variants = index[key] else { return [] }
        var found: [CacheEntry] = []
        found.reserveCapacity(variants.count)
        let now = staleRetention.map { _ in clock.now() }
        for (variantKey, slot) in variants {
            guard var stored = order[slot] else { continue }
            if let staleRetention, let now, stored.entry.isPastRetention(staleRetention, at: now) {
                removeSlot(slot, key: key, variantKey: variantKey)
                events.emit(CacheEvent(.evicted, key: key, reasons: ["stale-retention"], bytes: stored.cost))
                continue
            }
            order.moveToHead(slot)
            useClock += 1
            stored.lastUse = useClock
            order.replace(slot, with: stored)
            found.append(stored.entry)
        }
        guard found.count > 1 else { return found }
        return found.sorted { $0.storedAt > $1.storedAt }
    }

    /// Stores an entry as the most recently used, replacing the variant with the same variant key, then
    /// evicts least-recently-used variants until the limits hold.
    ///
    /// A file-backed body is read into memory first (the memory tier never keeps files open); when that
    /// read fails the entry is not stored and a `CacheEvent.Kind.storageError` event says why.
    /// - Parameter entry: The entry.
    /// - Complexity: O(1) amortized, plus O(1) per evicted variant (plus reading a file-backed body); O(v)
    ///   for v variants of the key when it is at ``maximumVariantsPerKey``.
    public func store(_ entry: CacheEntry) {
        guard entry.cached.storagePolicy != .notAllowed else { return }
        let cost = entry.cost
        guard cost <= capacity, cost <= maximumEntryCost, countLimit > 0 else { return }
        var entry = entry
        if entry.cached.body.file != nil {
            do throws(CacheChainError) {
                entry.replaceBody(with: try entry.cached.body.loadedIntoMemory())
            } catch {
                events.emit(CacheEvent(.storageError, key: entry.key, reasons: [error.shortDescription], bytes: cost))
                return
            }
        }
        if let existing = index[entry.key]?[entry.variantKey] {
            removeSlot(existing, key: entry.key, variantKey: entry.variantKey)
        }
        evictVariants(of: entry.key)
        useClock += 1
        let slot = order.insertAtHead(Slot(entry: entry, cost: cost, lastUse: useClock))
        index[entry.key, default: [:]][entry.variantKey] = slot
        totalCost += cost
        evictIfNeeded()
    }

    /// Removes every variant of a key.
    /// - Parameter key: The primary key.
    /// - Complexity: O(v) for v variants of the key.
    public func remove(_ key: CacheKey) {
        guard let variants = index.removeValue(forKey: key) else { return }
        for slot in variants.values {
            if let removed = order.remove(slot) { totalCost -= removed.cost }
        }
    }

    /// Removes one variant of a key.
    /// - Parameters:
    ///   - key: The primary key.
    ///   - variantKey: The variant.
    /// - Complexity: O(1).
    public func remove(_ key: CacheKey, variantKey: String) {
        guard let slot = index[key]?[variantKey] else { return }
        removeSlot(slot, key: key, variantKey: variantKey)
    }

    /// Removes every entry.
    /// - Complexity: O(1) amortized.
    public func removeAll() {
        order.removeAll()
        index.removeAll()
        totalCost = 0
    }

    /// Every key with a stored variant.
    /// - Returns: The keys.
    /// - Complexity: O(k) for k keys.
    public func keys() -> [CacheKey] {
        Array(index.keys)
    }

    /// Exact memory usage and capacity; disk figures are zero.
    /// - Returns: The usage.
    /// - Complexity: O(1).
    public func usage() -> StorageUsage {
        StorageUsage(memoryBytes: totalCost, memoryCapacity: capacity, entryCount: order.count)
    }

    /// Removes every variant for which the predicate holds.
    /// - Parameter shouldRemove: Decides per entry.
    /// - Complexity: O(n) for n stored variants.
    public func removeEntries(where shouldRemove: @Sendable (CacheEntry) -> Bool) {
        for (key, variants) in index {
            for (variantKey, slot) in variants {
                if let stored = order[slot], shouldRemove(stored.entry) {
                    removeSlot(slot, key: key, variantKey: variantKey)
                }
            }
        }
    }

    /// Removes every variant stale at `now` for at least `olderThan`.
    /// - Parameters:
    ///   - now: The current time.
    ///   - olderThan: How long a variant must have been stale.
    ///   - policy: The freshness rules.
    /// - Returns: The number of variants removed.
    /// - Complexity: O(n) for n stored variants.
    public func removeExpired(now: Date, olderThan: Duration, policy: CachePolicyConfiguration) -> Int {
        var removed = 0
        for (key, variants) in index {
            for (variantKey, slot) in variants {
                if let stored = order[slot], stored.entry.isExpired(at: now, olderThan: olderThan, policy: policy) {
                    removeSlot(slot, key: key, variantKey: variantKey)
                    removed += 1
                }
            }
        }
        return removed
    }

    /// Removes every variant stored at or after a date.
    /// - Parameter date: The earliest `CacheEntry.storedAt` to remove.
    /// - Complexity: O(n) for n stored variants.
    public func removeEntries(storedSince date: Date) {
        removeEntries(where: { $0.storedAt >= date })
    }

    /// Changes the byte limit, evicting least-recently-used variants when it shrinks.
    /// - Parameter newCapacity: The new limit in bytes.
    /// - Complexity: O(1) plus O(1) per evicted variant.
    public func setCapacity(_ newCapacity: Int) {
        capacity = max(0, newCapacity)
        evictIfNeeded()
    }

    private func removeSlot(_ slot: Int, key: CacheKey, variantKey: String) {
        if let removed = order.remove(slot) { totalCost -= removed.cost }
        index[key]?[variantKey] = nil
        if index[key]?.isEmpty == true { index[key] = nil }
    }

    /// Evicts the key's least recently used variants until one more fits under ``maximumVariantsPerKey``.
    private func evictVariants(of key: CacheKey) {
        while let variants = index[key], variants.count >= maximumVariantsPerKey {
            var oldest: (variantKey: String, slot: Int, lastUse: UInt64)?
            for (variantKey, slot) in variants {
                guard let stored = order[slot] else { continue }
                if oldest.map({ stored.lastUse < $0.lastUse }) ?? true { oldest = (variantKey, slot, stored.lastUse) }
            }
            guard let oldest, let victim = order[oldest.slot] else { return }
            removeSlot(oldest.slot, key: key, variantKey: oldest.variantKey)
            events.emit(CacheEvent(.evicted, key: key, reasons: ["variant-limit"], bytes: victim.cost))
        }
    }

    private func evictIfNeeded() {
        while totalCost > capacity || order.count > countLimit, order.tail >= 0 {
            let slot = order.tail
            guard let victim = order[slot] else { break }
            removeSlot(slot, key: victim.entry.key, variantKey: victim.entry.variantKey)
            events.emit(CacheEvent(.evicted, key: victim.entry.key, reasons: ["lru"], bytes: victim.cost))
        }
    }
}
