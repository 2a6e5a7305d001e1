import CacheChainCore

extension DiskStorage {
    /// Writes the recorded uses of recent hits to the index, as ``flush()`` does: what
    /// `HTTPCacheClient.shutdown()` calls through `CacheStorage`, so the next process finds the LRU order.
    /// - Throws: `CacheChainError` when the index cannot be written.
    /// - Complexity: O(u log n) for u recorded uses.
    public func flushPendingWrites() async throws {
        try await flush()
    }
}
