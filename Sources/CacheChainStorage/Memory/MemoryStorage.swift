public import CacheChainCore
public import CacheChainPolicy
public import Foundation

/// An in-memory backend with a byte (cost) limit, a count limit and least-recently-used eviction, whose hits
/// scale across cores.
///
/// Keys are spread over shards by their hash, each shard behind a lock of its own with an exact LRU order of
/// its own (an intrusive linked list indexed by a dictionary: lookup, touch, insert and remove are O(1)), so
/// hits on different shards never wait for each other and a hit never suspends: no actor hop, no queue. Every
/// successful read marks the variants it returns as recently used in their shard. The byte and count limits
/// hold for the whole store: a store that goes over them evicts its own shard's least recently used variants
/// first, then other shards' in turn, and reports each with a `CacheEvent.Kind.evicted` event. A store of a
/// single shard (the default for a capacity under 8 MiB, see ``init(capacity:countLimit:maximumEntryCost:maximumVariantsPerKey:staleRetention:clock:shards:events:)``)
/// keeps one exact LRU order over every entry. An entry costlier than the whole capacity is not stored (and
/// evicts nothing). `.notAllowed` entries are never kept; `.allowed` and `.allowedInMemoryOnly` both are.
///
/// ```swift
/// let storage = MemoryStorage(capacity: 50 * 1024 * 1024, countLimit: 10_000)
/// ```
public final class MemoryStorage: CacheStorage {
    /// The whole store's figures, behind one lock (taken by stores and removals, never by a hit).
    struct Totals {
        var cost = 0
        var count = 0
        var capacity: Int
    }

    let shards: [LockedValue<MemoryShard>]
    let totals: LockedValue<Totals>
    private let events: CacheEventSink
    /// Whether a key with a discriminator or a method other than `GET` (a `QUERY`'s) was ever stored: until then
    /// ``removeEntries(sameTargetAs:)``, which runs after every unsafe request, has nothing to look for.
    private let hasStoredDiscriminatedKeys = LockedValue(false)
    /// The variants stored with a `Cache-Groups` field, by origin and group (``removeEntries(inGroups:origin:)``).
    let groupIndex = LockedValue(MemoryGroupIndex())

    /// The byte limit.
    public var capacity: Int { totals.withLock { $0.capacity } }
    /// The maximum number of stored variants.
    public let countLimit: Int
    /// The largest entry (`CacheEntry.cost`) kept; larger ones are not stored. Like `URLCache`, which keeps
    /// out of memory any response above a fraction of the capacity, this stops one huge download from
    /// evicting everything else.
    public let maximumEntryCost: Int
    /// The most variants (`Vary` selections) kept for one key: storing another evicts the key's least
    /// recently used variant (an `CacheEvent.Kind.evicted` event with the reason `variant-limit`).
    public let maximumVariantsPerKey: Int
    /// How many shards, each with its own lock and LRU order, the keys are spread over.
    public var shardCount: Int { shards.count }
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
    ///   - shards: How many shards (each with its own lock and exact LRU order) to spread keys over, at least
    ///     1; by default 8 for a capacity of 8 MiB or more with a count limit of at least 1,024, otherwise 1
    ///     (one exact LRU order over the whole store, for small caches whose every eviction matters).
    ///   - events: Receives an `CacheEvent.Kind.evicted` event per evicted variant and a
    ///     `CacheEvent.Kind.storageError` event when a file-backed body cannot be read.
    public init(
        capacity: Int = 10 * 1024 * 1024,
        countLimit: Int = .max,
        maximumEntryCost: Int? = nil,
        maximumVariantsPerKey: Int = 32,
        staleRetention: Duration? = nil,
        clock: any CacheClock = SystemClock(),
        shards: Int? = nil,
        events: CacheEventSink = .none
    ) {
        self.staleRetention = staleRetention
        self.clock = clock
        let capacity = max(0, capacity)
        self.totals = LockedValue(Totals(capacity: capacity))
        self.countLimit = max(0, countLimit)
        self.maximumEntryCost = max(0, maximumEntryCost ?? capacity)
        self.maximumVariantsPerKey = max(1, maximumVariantsPerKey)
        let defaultShards = capacity >= 8 << 20 && countLimit >= 1024 ? 8 : 1
        self.shards = (0..<max(1, shards ?? defaultShards)).map { _ in LockedValue(MemoryShard()) }
        self.events = events
    }

    /// The shard a key lives in (`0..<shardCount`; for tests of the per-shard order).
    package func shardIndex(for key: CacheKey) -> Int {
        shards.count == 1 ? 0 : Int(UInt(bitPattern: key.hashValue) % UInt(shards.count))
    }

    /// Returns the variants stored for a key, most recently stored first, and marks them recently used;
    /// variants past ``staleRetention`` are removed instead.
    ///
    /// Synchronous under the key's shard lock: it never suspends, and hits on other shards run in parallel.
    /// - Parameter key: The primary key.
    /// - Returns: The variants.
    /// - Complexity: O(v log v) for v variants of the key (at most ``maximumVariantsPerKey``); independent of
    ///   the number of keys.
    public func entries(for key: CacheKey) async -> [CacheEntry] {
        let shard = shards[shardIndex(for: key)]
        guard let staleRetention else { return shard.withLock { $0.touch(key).found } }
        let now = clock.now()
        let (found, dropped) = shard.withLock { $0.touch(key) { $0.isPastRetention(staleRetention, at: now) } }
        account(removedCost: dropped.reduce(0) { $0 + $1.cost }, count: dropped.count)
        report(dropped)
        return found
    }

    /// Stores an entry as the most recently used of its shard, replacing the variant with the same variant
    /// key, then evicts least-recently-used variants (its shard's first) until the limits hold.
    ///
    /// A file-backed body is read into memory first (the memory tier never keeps files open); when that
    /// read fails the entry is not stored and a `CacheEvent.Kind.storageError` event says why.
    /// - Parameter entry: The entry.
    /// - Complexity: O(1) amortized, plus O(1) per evicted variant (plus reading a file-backed body); O(v)
    ///   for v variants of the key when it is at ``maximumVariantsPerKey``.
    public func store(_ entry: CacheEntry) async {
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
        if !entry.key.discriminator.isEmpty || entry.key.method != "GET" { hasStoredDiscriminatedKeys.withLock { $0 = true } }
        let home = shardIndex(for: entry.key)
        let change = shards[home].withLock { $0.insert(entry, cost: cost, maximumVariants: maximumVariantsPerKey) }
        totals.withLock {
            $0.cost += change.cost
            $0.count += change.count
        }
        report(change.evicted)
        evictIfNeeded(startingAt: home, sparingNewest: true)
        let groups = entry.cacheGroups
        if !groups.isEmpty { indexGroups(groups, of: entry) }
    }

    /// Removes every variant of a key.
    /// - Parameter key: The primary key.
    /// - Complexity: O(v) for v variants of the key.
    public func remove(_ key: CacheKey) async {
        let removed = shards[shardIndex(for: key)].withLock { $0.remove(key) }
        account(removedCost: removed.reduce(0) { $0 + $1.cost }, count: removed.count)
    }

    /// Removes every variant of every key with `key`'s method and URL, whatever its discriminator (every `QUERY`
    /// stored for a URI).
    /// - Parameter key: A key of the target.
    /// - Complexity: O(1) until a key with a discriminator was stored; then O(k) key comparisons for k keys, no
    ///   entry copied.
    public func removeEntries(sameTargetAs key: CacheKey) async {
        guard hasStoredDiscriminatedKeys.withLock({ $0 }) else { return }
        for shard in shards {
            let removed = shard.withLock { shard in
                let doomed = shard.keys.filter { $0.isSameTarget(as: key) }
                return doomed.flatMap { shard.remove($0) }
            }
            guard !removed.isEmpty else { continue }
            account(removedCost: removed.reduce(0) { $0 + $1.cost }, count: removed.count)
        }
    }

    /// Removes one variant of a key.
    /// - Parameters:
    ///   - key: The primary key.
    ///   - variantKey: The variant.
    /// - Complexity: O(1).
    public func remove(_ key: CacheKey, variantKey: String) async {
        guard let removed = shards[shardIndex(for: key)].withLock({ $0.remove(key, variantKey: variantKey) }) else { return }
        account(removedCost: removed.cost, count: 1)
    }

    /// Removes every entry.
    /// - Complexity: O(1) amortized per shard.
    public func removeAll() async {
        groupIndex.withLock { $0.removeAll() }
        for shard in shards {
            let (cost, count) = shard.withLock { shard in
                defer { shard.removeAll() }
                return (shard.cost, shard.count)
            }
            account(removedCost: cost, count: count)
        }
    }

    /// Every key with a stored variant.
    /// - Returns: The keys.
    /// - Complexity: O(k) for k keys.
    public func keys() async -> [CacheKey] {
        shards.flatMap { shard in shard.withLock { Array($0.keys) } }
    }

    /// Exact memory usage and capacity; disk figures are zero.
    /// - Returns: The usage.
    /// - Complexity: O(1).
    public func usage() async -> StorageUsage {
        totals.withLock { StorageUsage(memoryBytes: $0.cost, memoryCapacity: $0.capacity, entryCount: $0.count) }
    }

    /// The byte limit as `StorageUsage.memoryCapacity`, read without touching the entries.
    public var capacities: StorageUsage {
        StorageUsage(memoryCapacity: capacity)
    }

    /// Removes every variant for which the predicate holds.
    ///
    /// The predicate runs outside the shard locks (it may call back into this store); a variant replaced
    /// meanwhile is kept.
    /// - Parameter shouldRemove: Decides per entry.
    /// - Complexity: O(n) for n stored variants.
    public func removeEntries(where shouldRemove: @Sendable (CacheEntry) -> Bool) async {
        removeMatching(shouldRemove)
    }

    /// Removes every variant stale at `now` for at least `olderThan`.
    /// - Parameters:
    ///   - now: The current time.
    ///   - olderThan: How long a variant must have been stale.
    ///   - policy: The freshness rules.
    /// - Returns: The number of variants removed.
    /// - Complexity: O(n) for n stored variants.
    public func removeExpired(now: Date, olderThan: Duration, policy: CachePolicyConfiguration) async -> Int {
        removeMatching { $0.isExpired(at: now, olderThan: olderThan, policy: policy) }
    }

    /// Removes every variant for which `shouldRemove` holds, judged outside the shard locks on a snapshot of
    /// each shard; a variant replaced meanwhile is kept.
    /// - Returns: The number of variants removed.
    @discardableResult
    private func removeMatching(_ shouldRemove: (CacheEntry) -> Bool) -> Int {
        var removedCount = 0
        for shard in shards {
            let doomed = shard.withLock { $0.entries }.filter(shouldRemove)
            guard !doomed.isEmpty else { continue }
            let removed = shard.withLock { shard in
                doomed.compactMap { shard.remove($0.key, variantKey: $0.variantKey, storedAt: $0.storedAt) }
            }
            account(removedCost: removed.reduce(0) { $0 + $1.cost }, count: removed.count)
            removedCount += removed.count
        }
        return removedCount
    }

    /// Removes every variant stored at or after a date.
    /// - Parameter date: The earliest `CacheEntry.storedAt` to remove.
    /// - Complexity: O(n) for n stored variants.
    public func removeEntries(storedSince date: Date) async {
        await removeEntries(where: { $0.storedAt >= date })
    }

    /// Changes the byte limit, evicting least-recently-used variants when it shrinks.
    /// - Parameter newCapacity: The new limit in bytes.
    /// - Complexity: O(1) plus O(1) per evicted variant.
    public func setCapacity(_ newCapacity: Int) async {
        totals.withLock { $0.capacity = max(0, newCapacity) }
        evictIfNeeded(startingAt: 0, sparingNewest: false)
    }

    func account(removedCost: Int, count: Int) {
        guard count > 0 else { return }
        totals.withLock {
            $0.cost -= removedCost
            $0.count -= count
        }
    }

    /// Evicts least recently used variants until both limits hold: those of shard `start` first (sparing its
    /// newest variant, the one just stored, when `sparingNewest` is set), then each other shard's in turn.
    private func evictIfNeeded(startingAt start: Int, sparingNewest: Bool) {
        var evicted: [MemoryShard.Eviction] = []
        defer { report(evicted) }
        for step in 0..<shards.count {
            let position = (start + step) % shards.count
            while totals.withLock({ $0.cost > $0.capacity || $0.count > countLimit }) {
                guard let victim = shards[position].withLock({ $0.evictLeastRecentlyUsed(keepingLast: sparingNewest && step == 0) }) else { break }
                account(removedCost: victim.cost, count: 1)
                evicted.append(victim)
            }
        }
    }

    /// Emits an `evicted` event per eviction, outside every lock.
    private func report(_ evictions: [MemoryShard.Eviction]) {
        for eviction in evictions {
            events.emit(CacheEvent(.evicted, key: eviction.key, reasons: [eviction.reason], bytes: eviction.cost))
        }
    }
}
