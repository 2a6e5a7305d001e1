import CacheChainCore

extension TieredStorage {
    /// Flushes both tiers: the memory tier first, then the disk tier (whose batched LRU uses reach its index).
    /// - Throws: The first tier's error; the other tier is flushed all the same.
    public func flushPendingWrites() async throws {
        var failure: (any Error)?
        do { try await memory.flushPendingWrites() } catch { failure = error }
        do { try await disk.flushPendingWrites() } catch { failure = failure ?? error }
        if let failure { throw failure }
    }
}
