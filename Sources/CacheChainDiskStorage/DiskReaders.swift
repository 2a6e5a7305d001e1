import CacheChainCore
import Synchronization

/// Index connections for lookups on the caller's thread, and the uses those lookups record.
///
/// A disk hit used to cross to the storage's thread and back: ~13 µs on a busy 2-core machine and 30–50 µs on a quiet
/// one (a parked thread's wake-up), three times the read itself. A lookup of a small entry is bounded work — an
/// index descent in SQLite's page cache, and a read of at most ``largestInlineBody`` bytes from the page cache — so
/// `DiskStorage` does it on the caller's thread with a reader from this pool (issue 42; the house rule forbids
/// *unbounded* blocking on the cooperative pool). Anything else goes to the storage's thread as before: a writer's
/// work, a larger body, a damaged or vanished entry, a busy index (readers never wait for a lock), every reader in
/// use, a read-only cache.
///
/// Readers are read-only SQLite connections to the same WAL index (readers never block the writer, nor it them).
/// Each is used by one thread at a time: checked out under the lock, used, checked back in. A reset of the index
/// (after corruption) makes every reader of the old file stale (``invalidate()``).
///
/// Every lookup's uses (for the least-recently-used order), on either thread, are recorded here under one lock with
/// the recent-use window that keeps the most recently used rows from being rewritten (`RecentUseWindow`), and moved
/// into the writer's pending uses by the storage's thread (``takeUses()``); when too many wait, lookups go to the
/// storage's thread, which writes them.
final class DiskReaders: Sendable {
    /// The largest body a lookup on the caller's thread reads.
    static let largestInlineBody = 64 * 1024

    /// A reader checked out by one thread.
    struct Lane {
        let index: DiskIndex
        let generation: Int
    }

    private struct Pool {
        var idle: [DiskIndex] = []
        var open = 0
    }

    private let path: String
    private let limit: Int
    private let pendingLimit: Int
    // Invariant (LockedValue's unchecked Sendable): a `DiskIndex` in `idle` is reached only under the lock, and a checked-out
    // one only by the thread that holds its `Lane`.
    private let pool = LockedValue(Pool())
    private let generation = Atomic<Int>(0)

    private struct Uses {
        var pending: [Int64: Int64] = [:]
        var window = RecentUseWindow()
        var lastStamp: Int64 = 0
    }

    private let uses = LockedValue(Uses())

    /// Creates an empty pool.
    /// - Parameters:
    ///   - path: The index database.
    ///   - limit: The most readers open at once.
    ///   - pendingLimit: The most uses recorded before lookups go to the storage's thread.
    init(path: String, limit: Int, pendingLimit: Int) {
        self.path = path
        self.limit = max(1, limit)
        self.pendingLimit = pendingLimit
    }

    /// An idle reader, or a new one while fewer than the limit are open; `nil` when every reader is in use, one
    /// cannot be opened, or too many uses wait for the storage's thread.
    func checkOut() -> Lane? {
        guard pendingUseCount < pendingLimit else { return nil }
        let current = generation.load(ordering: .acquiring)
        let taken = pool.withLock { pool -> (index: DiskIndex?, mayOpen: Bool) in
            if let index = pool.idle.popLast() { return (index, false) }
            guard pool.open < limit else { return (nil, false) }
            pool.open += 1
            return (nil, true)
        }
        if let index = taken.index { return Lane(index: index, generation: current) }
        guard taken.mayOpen else { return nil }
        guard let index = try? DiskIndex.reader(path: path) else {
            pool.withLock { $0.open -= 1 }
            return nil
        }
        return Lane(index: index, generation: current)
    }

    /// Returns a reader to the pool (or closes it when the index was reset since it was checked out).
    func checkIn(_ lane: Lane) {
        let isCurrent = lane.generation == generation.load(ordering: .acquiring)
        pool.withLock { pool in
            if isCurrent {
                pool.idle.append(lane.index)
            } else {
                pool.open -= 1
            }
        }
    }

    /// Closes every idle reader and makes the checked-out ones stale: the index file was replaced.
    func invalidate() {
        generation.add(1, ordering: .releasing)
        let closed = pool.withLock { pool -> [DiskIndex] in
            let idle = pool.idle
            pool.idle.removeAll()
            pool.open -= idle.count
            return idle
        }
        _ = closed  // closed here, outside the lock
    }

    /// How many uses wait to be written.
    var pendingUseCount: Int { uses.withLock { $0.pending.count } }

    /// A use time later than every one given before (microseconds since 1970), for a stored row or a use.
    func nextStamp() -> Int64 {
        uses.withLock { uses in
            uses.lastStamp = max(uses.lastStamp + 1, POSIXFile.nowMicroseconds())
            return uses.lastStamp
        }
    }

    /// Records the uses of rows a lookup read, except those among the most recently used already; first refreshes the
    /// recent-use window with `index` (the reader's or the writer's connection) when it is due.
    func recordUses(of rows: [DiskIndex.Row], refreshingWith index: DiskIndex) {
        guard !rows.isEmpty else { return }
        if uses.withLock({ $0.window.isDue }) {
            let window = (try? index.totals().count).map(RecentUseWindow.window(forEntryCount:)) ?? 0
            let threshold = window > 0 ? (try? index.lastUse(atRecencyRank: window - 1)) : nil
            uses.withLock { $0.window.refreshed(threshold: threshold) }
        }
        let now = POSIXFile.nowMicroseconds()
        uses.withLock { uses in
            for row in rows where uses.window.shouldRecord(lastUsed: row.lastUsed) {
                uses.lastStamp = max(uses.lastStamp + 1, now)
                uses.pending[row.id] = uses.lastStamp
            }
        }
    }

    /// Forgets a row's unwritten use (the row was deleted).
    func forgetUse(of id: Int64) {
        uses.withLock { _ = $0.pending.removeValue(forKey: id) }
    }

    /// Counts a store toward the window's next refresh.
    func noteStore() {
        uses.withLock { $0.window.noteStore() }
    }

    /// Makes the window stale: the recorded order changed (uses were written, or the index was reset).
    func invalidateWindow() {
        uses.withLock { $0.window.invalidate() }
    }

    /// The uses recorded so far, to be written by the storage's thread.
    func takeUses() -> [Int64: Int64] {
        uses.withLock { uses in
            let taken = uses.pending
            uses.pending.removeAll()
            return taken
        }
    }
}
