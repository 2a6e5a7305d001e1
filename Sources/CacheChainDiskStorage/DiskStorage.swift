public import CacheChainCore
import CacheChainPolicy
import Foundation
import Synchronization

/// A persistent backend on a directory: crash-consistent, checked on every read, safe to share between
/// processes, LRU-evicted by its own index, and bounded in memory for large bodies.
///
/// ```swift
/// let disk = try DiskStorage(directory: "/var/cache/myapp/http", capacity: 512 << 20)
/// let client = HTTPCacheClient(transport: CurlTransport(), configuration: .init(storage: disk))
/// ```
///
/// **Layout.** `<directory>/cachechain-format` holds the format version (``formatVersion``); everything else is
/// under `<directory>/v<format>/`: `index.sqlite` (SQLite, WAL) with one row per variant, `tmp/` for files being
/// written, and `00/`…`ff/` for entry files. Only the owner can read any of it: directories are 0700 and
/// files 0600, created so and checked (and repaired) when the cache is opened. Bodies up to ``Configuration/inlineBodyLimit`` live in the
/// index row; larger ones in an entry file named by the SHA-256 of key and variant plus a unique write id.
/// A directory of an older format (an older build's) is emptied and upgraded, with a `storageError` event; a newer
/// or unknown format is refused with `invalid-configuration` (never wiped). <doc:OnDiskFormat> has every byte.
///
/// **Writes.** A large body is streamed to a temporary file (bounded memory), synced when
/// ``Durability/durable``, renamed into place, then the index row is replaced and the capacity enforced
/// in one `BEGIN IMMEDIATE` transaction. A process killed at any instant leaves the old entry or the new
/// one, never a mix; leftovers (temporary files, files of replaced entries) are swept lazily, one shard
/// directory every 64 stores, or at once by ``sweepOrphans()``.
///
/// **Reads.** Every read checks the XXH3-64 checksum of metadata + body and that the stored key is the
/// requested one. A damaged, truncated, foreign or missing entry is removed, reported as a
/// `CacheEvent.Kind.storageError` event, and is a miss (the call throws `integrity-check-failed` when no
/// variant of the key survived); other entries are never affected.
///
/// **LRU.** Reads record their use in memory and write it to the index in batches (every 256 recorded
/// uses, on the next store, on ``flush()``, or when the storage is released), keeping a hit free of write
/// transactions. A hit of a row whose last use already ranks among the most recent 1/16 of the rows (at
/// most 4,096) records nothing: the order is exact except among those. Eviction removes the least
/// recently used rows in the store's transaction, so ``usage()`` is exact at every commit.
///
/// **Concurrency.** Writes, removals and every other call that may wait run on a serial dispatch queue of the
/// instance's own, off Swift's cooperative pool: they are serialized per instance, and their blocking SQLite and
/// file work — including a wait of up to 10 s on SQLite's `busy_timeout` while another process holds the lock, and
/// `fsync` — never pins a cooperative thread (the caller's task is suspended meanwhile). A lookup is bounded work
/// when the entries it finds hold bodies of at most 64 KiB: an index descent in SQLite's page cache and a read of
/// at most that much, with a read-only connection that never waits for a lock. Such a lookup runs on the caller's
/// thread, with no crossing to the queue and back (a thread wake-up costs more than the read: 13 µs on a busy
/// 2-core machine, 30–50 µs on a quiet one); anything else — a larger body, a damaged or vanished entry, a busy
/// index, an entry past its retention, a read-only cache — goes to the queue as before. Other processes and other
/// instances coordinate through SQLite's locks.
public final class DiskStorage: CacheStorage, @unchecked Sendable {  // invariant: every mutable property is touched only by work running on `io`'s serial queue (each public method hops there, except a lookup of small entries on the caller's thread, which touches only the lock-guarded `readers` and `decodedMetadata`, the atomic capacity and constants)
    /// The queue every call's blocking work runs on.
    let io: BlockingIOQueue
    /// The configuration the storage was opened with.
    public let configuration: Configuration
    /// The byte limit now: ``Configuration/capacity`` until ``setCapacity(_:)`` changes it. Atomic, so that
    /// ``capacities`` answers on any thread without a hop to `io`.
    private let capacityBytes: Atomic<Int>
    var capacity: Int {
        get { capacityBytes.load(ordering: .relaxed) }
        set { capacityBytes.store(newValue, ordering: .relaxed) }
    }
    /// The directory's key for secret `Vary` fields (``varyDigestKey(for:)``).
    let directoryVaryDigestKey: VaryDigestKey
    let root: String
    var index: DiskIndex
    /// Decodings of recently read metadata, reused while the bytes are the same.
    let decodedMetadata = DecodedMetadataMemo()
    /// Index readers for lookups on callers' threads (read-write caches only).
    let readers: DiskReaders
    /// Which hits record their use.
    private var storesSinceSweep = 0
    var sweepShard = Int.random(in: 0..<256)

    static let formatFileName = "cachechain-format"
    /// The directory format this build reads and writes, recorded in `<directory>/cachechain-format`: the
    /// format version of every stored entry (5, described in <doc:OnDiskFormat>). A directory of an older
    /// format is emptied and upgraded when opened; a newer or unknown one is refused.
    public static let formatVersion = Int(EntryCodec.version)
    /// Older formats this build upgrades by deleting their folder.
    static let olderFormats = 1..<formatVersion
    static let pendingUseLimit = 256

    /// Opens (creating when needed) a disk cache; with ``AccessMode/readOnly``, opens an existing one without
    /// writing anything.
    ///
    /// The open (directories, format check, SQLite) runs on the calling thread; from async code,
    /// ``open(configuration:)`` runs it on the storage's own queue instead.
    /// - Parameter configuration: The directory, capacity and options.
    /// - Throws: `CacheChainError` `storage-failed` when the directory cannot be created or is not writable
    ///   (read-only: when it holds no cache or its index cannot be read), `invalid-configuration` when it holds
    ///   another format version.
    public convenience init(configuration: Configuration) throws(CacheChainError) {
        try self.init(configuration: configuration, io: BlockingIOQueue(label: "cachechain.disk"))
    }

    /// Opens a disk cache whose calls will run on `io`.
    init(configuration: Configuration, io: BlockingIOQueue) throws(CacheChainError) {
        self.io = io
        self.configuration = configuration
        self.capacityBytes = Atomic(configuration.capacity)
        var directory = configuration.directory
        if directory.count > 1, directory.hasSuffix("/") { directory.removeLast() }
        root = directory + "/v\(Self.formatVersion)"
        if configuration.accessMode == .readOnly {
            try Self.checkFormatForReading(directory)
            // Without a readable key file, a key of this instance: entries holding digests never match, as for a lost key.
            directoryVaryDigestKey = Self.readVaryDigestKey(root) ?? .random()
            index = try DiskIndex(path: root + "/index.sqlite", durable: false, readOnly: true)
            readers = DiskReaders(path: root + "/index.sqlite", limit: 0, pendingLimit: 0)
            return
        }
        try POSIXFile.makeDirectories(directory)
        try OwnerOnlyAccess.restrict(directory)
        try Self.checkFormat(directory, events: configuration.events)
        try POSIXFile.makeDirectories(root + "/tmp")
        try Self.restrictToOwner(directory: directory, root: root)
        directoryVaryDigestKey = try Self.loadVaryDigestKey(root)
        index = try Self.openIndex(root, durable: configuration.durability == .durable)
        readers = DiskReaders(
            path: root + "/index.sqlite", limit: 2 * ProcessInfo.processInfo.activeProcessorCount, pendingLimit: Self.pendingUseLimit
        )
        Self.sweepTemporaryFiles(root, grace: configuration.orphanGracePeriod)
    }

    /// Opens (creating when needed) a disk cache.
    /// - Parameters:
    ///   - directory: The cache directory.
    ///   - capacity: The byte limit; 256 MiB by default.
    ///   - durability: `fast` by default.
    ///   - events: Receives eviction and storage-error events.
    /// - Throws: See ``init(configuration:)``.
    public convenience init(
        directory: String,
        capacity: Int = 256 * 1024 * 1024,
        durability: Durability = .fast,
        events: CacheEventSink = .none
    ) throws(CacheChainError) {
        try self.init(
            configuration: Configuration(directory: directory, capacity: capacity, durability: durability, events: events)
        )
    }

    deinit {
        // Readers first: the writer must be the index's last connection to close, so that SQLite checkpoints its log
        // and removes the `-wal` and `-shm` files (a read-only connection closing last leaves them behind).
        readers.invalidate()
    }

    // MARK: - Store

    /// Stores an entry, replacing the variant with the same key and variant key, then evicts least recently
    /// used entries until the capacity holds. `.allowedInMemoryOnly` and `.notAllowed` entries are not
    /// stored; neither is an entry larger than the whole capacity.
    /// - Parameter entry: The entry; a file-backed body is streamed, never loaded whole.
    ///
    /// When the disk is full (`ENOSPC`, `EDQUOT`, `SQLITE_FULL`), least recently used entries are evicted
    /// (`CacheEvent.Kind.evicted` events with the reason `disk-full`) and the store tried again, up to 8 times.
    /// - Throws: `CacheChainError` `storage-failed` (a disk still full with nothing left to evict, a read-only
    ///   instance or file system, a missing directory…) or `body-unreadable`; the previously stored variant is
    ///   then still intact.
    /// - Complexity: O(log n) index work plus O(1) per evicted entry, plus writing the body.
    public func store(_ entry: CacheEntry) async throws(CacheChainError) {
        try await io.run { () throws(CacheChainError) in
            guard entry.cached.storagePolicy == .allowed else { return }
            try requireWritable("store \(entry.key)")
            var attempts = 0
            while true {
                do throws(CacheChainError) {
                    return try storeOnce(entry)
                } catch {
                    // A full disk: evict least recently used entries (reason `disk-full`) and try again.
                    attempts += 1
                    guard attempts <= Self.diskFullRetries, Self.isDiskFull(error),
                        evictAfterDiskFull(needed: entry.cached.body.count + (64 << 10))
                    else { throw error }
                }
            }
        }
    }

    private func storeOnce(_ entry: CacheEntry) throws(CacheChainError) {
        let meta = EntryCodec.encodeMetadata(entry)
        let bodyLength = entry.cached.body.count
        let isInline = bodyLength <= configuration.inlineBodyLimit
        let size = meta.count + bodyLength + (isInline ? 0 : EntryCodec.headerSize)
        guard size <= capacity else { return }
        var row = DiskIndex.NewRow(
            key: entry.key.stringValue, variant: entry.variantKey, url: entry.key.url,
            storedAt: entry.storedAt.timeIntervalSinceReferenceDate, lastUsed: nextStamp(), size: size,
            bodyLength: bodyLength, checksum: 0, meta: meta, body: nil, file: nil, tags: entry.cached.userInfo.names + DiskIndex.groupTags(of: entry),
            vary: VaryFields.names(in: entry.cached.response).joined(separator: ",")
        )
        if isInline {
            let body = try entry.cached.body.collect()
            row.checksum = EntryChecksum.of(meta, body)
            row.body = body
        } else {
            let name = SHA256.hexDigest(Array("\(row.key)\n\(row.variant)".utf8)) + "." + POSIXFile.randomHex()
            row.checksum = try writeFile(named: name, meta: meta, body: entry.cached.body)
            row.file = name
        }
        let outcome: (files: [String], evicted: [Eviction])
        do throws(CacheChainError) {
            outcome = try indexCall { () throws(CacheChainError) in
                try index.transaction { () throws(CacheChainError) in try commit(row) }
            }
        } catch {
            if let newFile = row.file { POSIXFile.remove(path(ofFile: newFile)) }
            throw error
        }
        index.pendingUses.removeAll()
        readers.noteStore()
        finishEviction(outcome)
        storesSinceSweep += 1
        if storesSinceSweep >= 64 {
            storesSinceSweep = 0
            sweepNextShard()
        }
    }

    /// Inside the store transaction: records pending uses, replaces the variant, evicts.
    private func commit(_ row: DiskIndex.NewRow) throws(CacheChainError) -> (files: [String], evicted: [Eviction]) {
        absorbInlineUses()
        for (id, time) in index.pendingUses { try index.touch(id: id, at: time) }
        var files = try index.deleteVariant(key: row.key, variant: row.variant)
        let limited = try evictVariants(ofKey: row.key)
        let id = try index.insert(row)
        let eviction = try evictToFit(excluding: id)
        files += limited.files + eviction.files
        return (files, limited.evicted + eviction.evicted)
    }

    private func writeFile(named name: String, meta: [UInt8], body: PipelineBody) throws(CacheChainError) -> UInt64 {
        let temporary = "\(root)/tmp/\(POSIXFile.randomHex()).tmp"
        let durable = configuration.durability == .durable
        let checksum = try DiskEntryFile.create(meta: meta, body: body, at: temporary, sync: durable)
        let shard = root + "/" + name.prefix(2)
        do throws(CacheChainError) {
            if !POSIXFile.isDirectory(shard) { try POSIXFile.makeDirectories(shard) }
            try POSIXFile.move(temporary, path(ofFile: name))
            if durable { try POSIXFile.syncDirectory(shard) }
        } catch {
            POSIXFile.remove(temporary)
            throw error
        }
        return checksum
    }

    // MARK: - Helpers

    func path(ofFile name: String) -> String {
        "\(root)/\(name.prefix(2))/\(name)"
    }

    /// A strictly increasing microsecond stamp for LRU order.
    func nextStamp() -> Int64 {
        readers.nextStamp()
    }

    /// Writes the recorded uses of recent hits to the index (done automatically every 256 recorded uses
    /// and on every store); call it before a process exits to keep the LRU order across runs.
    /// - Throws: `CacheChainError` when the index cannot be written.
    /// - Complexity: O(u log n) for u recorded uses.
    public func flush() async throws(CacheChainError) {
        try await io.run { () throws(CacheChainError) in
            guard configuration.accessMode == .readWrite else { return }
            try flushUses()
        }
    }

    /// Reads the boundary of the recent-use window again; on an index error every use is recorded.
    /// Moves the uses that lookups recorded (`DiskReaders`) into the pending uses the next transaction writes.
    func absorbInlineUses() {
        for (id, time) in readers.takeUses() where time > index.pendingUses[id] ?? 0 { index.pendingUses[id] = time }
    }

    func flushUses() throws(CacheChainError) {
        absorbInlineUses()
        guard !index.pendingUses.isEmpty else { return }
        let uses = index.pendingUses
        index.pendingUses.removeAll()
        readers.invalidateWindow()
        try indexCall { () throws(CacheChainError) in
            try index.transaction { () throws(CacheChainError) in
                for (id, time) in uses { try index.touch(id: id, at: time) }
            }
        }
    }

    /// Runs an index operation; a damaged index database is replaced by an empty one (its entries become
    /// misses, their files orphans for the sweep) and the error is rethrown.
    func indexCall<Result>(_ body: () throws(CacheChainError) -> Result) throws(CacheChainError) -> Result {
        do throws(CacheChainError) {
            return try body()
        } catch {
            if let failure = error.underlying as? SQLiteFailure, failure.isCorruption {
                index.pendingUses.removeAll()
                readers.invalidateWindow()
                if let fresh = try? Self.resetIndex(root, durable: configuration.durability == .durable) { index = fresh }
                readers.invalidate()
                let reasons = [error.code.rawValue, "index rebuilt: \(error.message)"]
                configuration.events.emit(CacheEvent(.storageError, reasons: reasons))
            }
            throw error
        }
    }
}
