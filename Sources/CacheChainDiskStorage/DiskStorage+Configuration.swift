public import CacheChainCore

extension DiskStorage {
    /// How hard a store works to survive power loss.
    ///
    /// Both modes are crash-consistent against a killed process (`kill -9`): an entry is fully present or
    /// absent, because files are renamed into place and the index changes in one SQLite transaction.
    public enum Durability: String, Sendable, Hashable, CaseIterable {
        /// No `fsync`: a power loss or kernel crash may lose the most recent stores (a large entry whose
        /// bytes never reached the disk then fails its checksum and is a miss, never served damaged) or
        /// leave the index damaged, which is then detected, replaced by an empty one and reported (its
        /// entries become misses). SQLite runs with `synchronous = OFF`, so its checkpoints do not sync
        /// either (with `NORMAL` they did, which made recording the last use of hits on a large cache
        /// several times slower). The default, like `URLCache`, which never syncs.
        case fast
        /// Each large entry file and its directory are `fsync`ed before the index commit, and SQLite runs
        /// with `synchronous = FULL`: a store that returned survives power loss. Costs a few milliseconds.
        case durable
    }

    /// Whether a ``DiskStorage`` may change its directory.
    public enum AccessMode: String, Sendable, Hashable, CaseIterable {
        /// Reads and writes; a missing directory is created. The default.
        case readWrite
        /// Only reads: nothing is created, repaired, recorded or deleted, so it works on a read-only file
        /// system, on a full disk and in a directory this process may not write. The cache must exist (else
        /// `storage-failed`). A hit's use is not recorded (the LRU order stays as it was), a damaged entry is a
        /// miss reported as a `storageError` event but left in place, and every call that would write
        /// (``DiskStorage/store(_:)``, the removals, ``DiskStorage/setCapacity(_:)``) throws `storage-failed`.
        case readOnly
    }

    /// Everything a ``DiskStorage`` needs, with documented defaults.
    public struct Configuration: Sendable {
        /// The cache directory; created (with its parents) when missing.
        public var directory: String
        /// The byte limit: the sum of every entry's size (metadata + body, + 26 header bytes for entries
        /// in files). ``DiskStorage/usage()`` reports this sum exactly.
        public var capacity: Int
        /// `fast` (default) or `durable`.
        public var durability: Durability
        /// Bodies up to this size (16 KiB by default) are kept inside the SQLite index rather than in an
        /// entry file: one read per hit and no file per small entry.
        public var inlineBodyLimit: Int
        /// File-backed bodies up to this size (4 MiB by default) are returned in memory (read and checked
        /// in one pass); larger ones are returned as a `BodyFile` region of the entry file, after a
        /// bounded-memory checking pass, so a 1 GiB hit never loads 1 GiB.
        public var inMemoryBodyLimit: Int
        /// How old a file without an index row must be before the lazy sweep deletes it (10 minutes by
        /// default): another process may be between renaming its file and committing its row.
        public var orphanGracePeriod: Duration
        /// The most variants (`Vary` selections) kept for one key, 32 by default (from 1 to 4,096): storing
        /// another evicts the key's least recently used variant (an `CacheEvent.Kind.evicted` event with the
        /// reason `variant-limit`), so a response that varies on a field each client sets differently cannot
        /// fill the cache with one URL or make its lookups slow.
        public var maximumVariantsPerKey: Int
        /// `readWrite` (default) or `readOnly` (``AccessMode``): what `cachechain stats`, `ls` and `explain` use.
        public var accessMode: AccessMode
        /// How long a stale entry is kept beyond what its own `stale-while-revalidate`/`stale-if-error` allow
        /// (`CacheEntry.isPastRetention(_:at:)`, the Redis backend's rule); `nil` (the default) keeps stale
        /// entries until they are evicted or removed. A lookup removes an entry past it (an
        /// `CacheEvent.Kind.evicted` event with the reason `stale-retention`) and does not return it.
        public var staleRetention: Duration?
        /// The clock ``staleRetention`` is measured with; the system's by default.
        public var clock: any CacheClock
        /// Receives `CacheEvent.Kind.evicted` events and a `CacheEvent.Kind.storageError` event per
        /// damaged entry that was removed.
        public var events: CacheEventSink

        /// Creates a configuration.
        /// - Parameters:
        ///   - directory: The cache directory.
        ///   - capacity: The byte limit; 256 MiB by default.
        ///   - durability: `fast` by default.
        ///   - inlineBodyLimit: The largest body kept in the index; 16 KiB by default.
        ///   - inMemoryBodyLimit: The largest body returned in memory; 4 MiB by default.
        ///   - orphanGracePeriod: The age before an unreferenced file is swept; 10 minutes by default.
        ///   - maximumVariantsPerKey: The most variants kept per key; 32 by default, at least 1, at most 4,096.
        ///   - accessMode: `readWrite` by default; `readOnly` opens an existing cache without writing anything.
        ///   - staleRetention: The longest a stale entry is kept (see ``staleRetention``); unlimited by default.
        ///   - clock: The clock of ``staleRetention``; the system's by default.
        ///   - events: The event sink.
        public init(
            directory: String,
            capacity: Int = 256 * 1024 * 1024,
            durability: Durability = .fast,
            inlineBodyLimit: Int = 16 * 1024,
            inMemoryBodyLimit: Int = 4 * 1024 * 1024,
            orphanGracePeriod: Duration = .seconds(600),
            maximumVariantsPerKey: Int = 32,
            accessMode: AccessMode = .readWrite,
            staleRetention: Duration? = nil,
            clock: any CacheClock = SystemClock(),
            events: CacheEventSink = .none
        ) {
            self.staleRetention = staleRetention
            self.clock = clock
            self.directory = directory
            self.capacity = max(0, capacity)
            self.durability = durability
            self.inlineBodyLimit = max(0, inlineBodyLimit)
            self.inMemoryBodyLimit = max(0, inMemoryBodyLimit)
            self.orphanGracePeriod = orphanGracePeriod
            self.maximumVariantsPerKey = min(max(1, maximumVariantsPerKey), 1 << DiskIndex.slotBits)
            self.accessMode = accessMode
            self.events = events
        }
    }
}
