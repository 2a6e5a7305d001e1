/// Which hits of a ``DiskStorage`` need to record their use: not those of a row whose recorded last use is
/// already among the most recent ones of the index.
///
/// Recording a use rewrites the row and its place in the last-use index: on a large cache every hit of a
/// hot entry dirtied two random pages, and writing them back (every 256 hits) cost more than the hits
/// themselves (100,000 entries, 1,024 hot ones: 42–44k hits/s with every use written, 84–110k without;
/// p99 40–50 µs against 16–30 µs). A row whose last use ranks
/// within the ``window(forEntryCount:)`` most recent is far from eviction, so its new use is not written;
/// once other uses push it out of that window, its next hit is recorded again. LRU order is therefore exact
/// except among the most recent `window` rows (1/16 of the entries, at most 4,096; none below 16 entries),
/// which eviction reaches only after everything older.
///
/// The rank boundary is read from the index (``DiskIndex/lastUse(atRecencyRank:)``) and re-read after
/// ``hitsPerRefresh`` hits, ``storesPerRefresh`` stores or a write of recorded uses, so it lags by at most
/// that many uses (plus what other processes record meanwhile).
struct RecentUseWindow {
    static let hitsPerRefresh = 256
    static let storesPerRefresh = 64
    static let largestWindow = 4096

    /// Rows whose recorded last use is at least this are in the window; `Int64.max` records every use.
    private(set) var threshold = Int64.max
    private var hits = 0
    private var stores = 0
    private var isStale = true

    /// The number of most recent rows whose new uses are not recorded, for an index of `count` rows.
    static func window(forEntryCount count: Int) -> Int {
        min(count / 16, largestWindow)
    }

    /// Whether the boundary should be read again before the next hit.
    var isDue: Bool {
        isStale || hits >= Self.hitsPerRefresh || stores >= Self.storesPerRefresh
    }

    /// Sets the boundary read from the index (`nil`: record every use).
    mutating func refreshed(threshold: Int64?) {
        self.threshold = threshold ?? .max
        hits = 0
        stores = 0
        isStale = false
    }

    /// Forgets the boundary (recorded uses were written, or the index was replaced): every use is recorded
    /// until the next refresh.
    mutating func invalidate() {
        threshold = .max
        isStale = true
    }

    /// Counts a hit and says whether the use of a row last used at `lastUsed` must be recorded.
    mutating func shouldRecord(lastUsed: Int64) -> Bool {
        hits += 1
        return lastUsed < threshold
    }

    mutating func noteStore() {
        stores += 1
    }
}
