public import Foundation

/// A storage backend: keys and bytes, no HTTP.
///
/// The policy engine decides what to store and what a stored response is good for; a backend only keeps
/// ``CacheEntry`` values, several variants per ``CacheKey`` (one per ``CacheEntry/variantKey``).
/// Every backend, including ones a team writes, runs the conformance suite in `CacheChainTesting`.
///
/// Backends must honour ``CacheEntry/cached``'s ``CachedResponse/storagePolicy``: a persistent backend
/// refuses `.allowedInMemoryOnly` entries (by not storing them) and no backend keeps `.notAllowed` ones.
///
/// Errors thrown by a backend never fail a request: the interceptors turn them into an event and a miss.
public protocol CacheStorage: Sendable {
    /// Returns every stored variant for a key, most recently stored first.
    /// - Parameter key: The primary key.
    /// - Returns: The variants; empty when nothing is stored.
    /// - Throws: A storage error (I/O, integrity); callers treat it as a miss.
    func entries(for key: CacheKey) async throws -> [CacheEntry]

    /// Stores an entry, replacing the stored variant with the same key and variant key.
    /// - Parameter entry: The entry.
    /// - Throws: A storage error; the previous variant stays intact when a write fails.
    func store(_ entry: CacheEntry) async throws

    /// Removes every variant stored for a key.
    /// - Parameter key: The primary key.
    func remove(_ key: CacheKey) async throws

    /// Removes every entry.
    func removeAll() async throws

    /// Every key with at least one stored variant.
    /// - Returns: The keys, in no particular order.
    func keys() async throws -> [CacheKey]

    /// The bytes in use and the capacity of each tier.
    /// - Returns: The current usage.
    func usage() async -> StorageUsage

    /// Removes every entry stored at or after a date (`URLCache.removeCachedResponses(since:)`).
    /// - Parameter date: The earliest ``CacheEntry/storedAt`` to remove.
    func removeEntries(storedSince date: Date) async throws

    /// Removes every entry for which a predicate holds; the building block of purge by prefix or tag.
    /// - Parameter shouldRemove: Decides per entry.
    func removeEntries(where shouldRemove: @Sendable (CacheEntry) -> Bool) async throws
}

extension CacheStorage {
    /// Default implementation: removes the matching variants key by key through ``removeEntries(where:)``.
    /// - Parameter date: The earliest ``CacheEntry/storedAt`` to remove.
    public func removeEntries(storedSince date: Date) async throws {
        try await removeEntries(where: { $0.storedAt >= date })
    }

    /// Default implementation over ``keys()``, ``entries(for:)``, ``remove(_:)`` and ``store(_:)``:
    /// O(number of entries). Backends with an index should provide a faster one.
    /// - Parameter shouldRemove: Decides per entry.
    public func removeEntries(where shouldRemove: @Sendable (CacheEntry) -> Bool) async throws {
        for key in try await keys() {
            let variants = try await entries(for: key)
            let kept = variants.filter { !shouldRemove($0) }
            guard kept.count != variants.count else { continue }
            try await remove(key)
            for entry in kept.reversed() { try await store(entry) }
        }
    }
}
