public import CacheChainCore
public import CacheChainPolicy
public import Foundation
public import HTTPTypes

/// A memory tier in front of a disk tier, like `URLCache`: hits come from memory when they can, from disk
/// otherwise, and a disk hit is promoted into memory.
///
/// ```swift
/// let storage = TieredStorage(
///     memory: MemoryStorage(capacity: 20 << 20, maximumEntryCost: 1 << 20),
///     disk: try DiskStorage(directory: cacheDirectory, capacity: 500 << 20)
/// )
/// ```
///
/// - `.allowed` entries are written to both tiers (memory first: a failed disk write is thrown after the
///   memory tier kept the entry); `.allowedInMemoryOnly` entries go to memory only, and any disk copy of
///   the same variant is removed so an older version cannot resurface; `.notAllowed` go nowhere.
/// - Each tier enforces its own capacity and eviction; ``usage()`` reports both tiers.
/// - A lookup answered by memory skips the disk when the key has no `Vary` variants (the memory tier then
///   holds the whole answer); keys with variants also consult the disk, so a variant evicted from memory
///   is still found. Disk variants missing from memory are promoted.
/// - Removals and purges apply to both tiers.
///
/// A memory tier is per process: when several processes share the disk tier, one process's memory may
/// serve an entry another process replaced on disk until it is evicted or removed.
public struct TieredStorage: CacheStorage {
    /// The front tier.
    public let memory: any CacheStorage
    /// The persistent tier.
    public let disk: any CacheStorage

    /// Creates a tiered backend.
    /// - Parameters:
    ///   - memory: The front tier, typically a ``MemoryStorage``.
    ///   - disk: The persistent tier, typically a `DiskStorage` (CacheChainDiskStorage).
    public init(memory: any CacheStorage, disk: any CacheStorage) {
        self.memory = memory
        self.disk = disk
    }

    /// Returns the variants for a key from memory, or from disk (promoting them into memory).
    /// - Parameter key: The primary key.
    /// - Returns: The variants, most recently stored first.
    /// - Throws: The disk tier's error when the memory tier had nothing.
    /// - Complexity: The memory tier's lookup; plus the disk tier's on a memory miss or for varying keys.
    public func entries(for key: CacheKey) async throws -> [CacheEntry] {
        try await merged(
            inMemory: (try? await memory.entries(for: key)) ?? [],
            onDisk: { try await disk.entries(for: key) }
        )
    }

    /// Returns the variants that may answer a request, from memory or from disk (promoting them into
    /// memory), as ``entries(for:)`` does, asking each tier for the request's candidates only.
    /// - Parameters:
    ///   - key: The primary key.
    ///   - request: The request.
    /// - Returns: The candidates, most recently stored first.
    /// - Throws: The disk tier's error when the memory tier had nothing.
    /// - Complexity: The tiers' `entries(for:matching:)`.
    public func entries(for key: CacheKey, matching request: HTTPRequest) async throws -> [CacheEntry] {
        try await merged(
            inMemory: (try? await memory.entries(for: key, matching: request)) ?? [],
            onDisk: { try await disk.entries(for: key, matching: request) }
        )
    }

    /// The memory tier's variants, completed by the disk tier's (promoted) unless memory answered alone.
    private func merged(
        inMemory: [CacheEntry],
        onDisk lookUpDisk: () async throws -> [CacheEntry]
    ) async throws -> [CacheEntry] {
        if !inMemory.isEmpty, inMemory.allSatisfy({ $0.variantKey.isEmpty }) { return inMemory }
        let onDisk: [CacheEntry]
        do {
            onDisk = try await lookUpDisk()
        } catch {
            if inMemory.isEmpty { throw error }
            return inMemory
        }
        var merged = inMemory
        let held = Set(inMemory.map(\.variantKey))
        for entry in onDisk where !held.contains(entry.variantKey) {
            try? await memory.store(entry)
            merged.append(entry)
        }
        return merged.sorted { $0.storedAt > $1.storedAt }
    }

    /// The disk tier's key: entries are made once for both tiers, and the disk keeps them across processes.
    /// - Parameter key: The primary key.
    /// - Returns: The disk tier's `CacheStorage.varyDigestKey(for:)`.
    public func varyDigestKey(for key: CacheKey) -> VaryDigestKey {
        disk.varyDigestKey(for: key)
    }

    /// Stores an entry in the tiers its storage policy allows.
    /// - Parameter entry: The entry.
    /// - Throws: The disk tier's error (the memory tier has stored the entry).
    /// - Complexity: The sum of the tiers' stores.
    public func store(_ entry: CacheEntry) async throws {
        switch entry.cached.storagePolicy {
        case .notAllowed:
            return
        case .allowedInMemoryOnly:
            try await memory.store(entry)
            try await disk.remove(entry.key, variantKey: entry.variantKey)
        case .allowed:
            try await memory.store(entry)
            try await disk.store(entry)
        }
    }

    /// Removes every variant of a key from both tiers.
    /// - Parameter key: The primary key.
    public func remove(_ key: CacheKey) async throws {
        try await memory.remove(key)
        try await disk.remove(key)
    }

    /// Removes one variant from both tiers.
    /// - Parameters:
    ///   - key: The primary key.
    ///   - variantKey: The variant.
    public func remove(_ key: CacheKey, variantKey: String) async throws {
        try await memory.remove(key, variantKey: variantKey)
        try await disk.remove(key, variantKey: variantKey)
    }

    /// Removes every entry from both tiers.
    public func removeAll() async throws {
        try await memory.removeAll()
        try await disk.removeAll()
    }

    /// Every key stored in either tier.
    /// - Returns: The keys.
    public func keys() async throws -> [CacheKey] {
        Array(Set(try await memory.keys()).union(try await disk.keys()))
    }

    /// Each tier's capacity, from ``memory`` and ``disk``.
    public var capacities: StorageUsage {
        get async {
            let front = await memory.capacities, back = await disk.capacities
            return StorageUsage(memoryCapacity: front.memoryCapacity, diskCapacity: back.diskCapacity)
        }
    }

    /// Memory figures from the memory tier, disk figures from the disk tier (both exact when the tiers'
    /// are); `entryCount` is the larger of the tiers' counts (every variant is on disk unless it is
    /// memory-only, and memory holds a subset).
    /// - Returns: The usage.
    public func usage() async -> StorageUsage {
        let front = await memory.usage(), back = await disk.usage()
        return StorageUsage(
            memoryBytes: front.memoryBytes, memoryCapacity: front.memoryCapacity,
            diskBytes: back.diskBytes, diskCapacity: back.diskCapacity,
            entryCount: max(front.entryCount, back.entryCount)
        )
    }

    /// Removes the entries stored at or after a date from both tiers.
    /// - Parameter date: The earliest `CacheEntry.storedAt` to remove.
    public func removeEntries(storedSince date: Date) async throws {
        try await memory.removeEntries(storedSince: date)
        try await disk.removeEntries(storedSince: date)
    }

    /// Removes the matching entries from both tiers.
    /// - Parameter shouldRemove: Decides per entry.
    public func removeEntries(where shouldRemove: @Sendable (CacheEntry) -> Bool) async throws {
        try await memory.removeEntries(where: shouldRemove)
        try await disk.removeEntries(where: shouldRemove)
    }

    /// Removes the entries under a URL prefix from both tiers.
    /// - Parameter urlPrefix: The prefix.
    public func removeEntries(urlPrefix: String) async throws {
        try await memory.removeEntries(urlPrefix: urlPrefix)
        try await disk.removeEntries(urlPrefix: urlPrefix)
    }

    /// Removes every entry of a target (every `QUERY` of a URI) from both tiers.
    /// - Parameter key: A key of the target; its discriminator is ignored.
    public func removeEntries(sameTargetAs key: CacheKey) async throws {
        try await memory.removeEntries(sameTargetAs: key)
        try await disk.removeEntries(sameTargetAs: key)
    }

    /// Removes every entry of the groups on an origin (RFC 9875) from both tiers, each through its own index.
    /// - Parameters:
    ///   - groups: The group names.
    ///   - origin: The origin, `CacheKey.origin`.
    public func removeEntries(inGroups groups: [String], origin: String) async throws {
        try await memory.removeEntries(inGroups: groups, origin: origin)
        try await disk.removeEntries(inGroups: groups, origin: origin)
    }

    /// Removes the matching tagged entries from both tiers.
    /// - Parameters:
    ///   - name: The userInfo name.
    ///   - shouldRemove: Decides per entry.
    public func removeEntries(withUserInfoNamed name: String, where shouldRemove: @Sendable (CacheEntry) -> Bool) async throws {
        try await memory.removeEntries(withUserInfoNamed: name, where: shouldRemove)
        try await disk.removeEntries(withUserInfoNamed: name, where: shouldRemove)
    }

    /// Removes the entries stale at `now` for at least `olderThan` from both tiers.
    /// - Parameters:
    ///   - now: The current time.
    ///   - olderThan: How long an entry must have been stale.
    ///   - policy: The freshness rules.
    /// - Returns: The number of distinct variants removed (a variant held by both tiers counts once).
    /// - Throws: A tier's storage error.
    public func removeExpired(now: Date, olderThan: Duration, policy: CachePolicyConfiguration) async throws -> Int {
        let removed = LockedValue(Set<String>())
        let select: @Sendable (CacheEntry) -> Bool = { entry in
            guard entry.isExpired(at: now, olderThan: olderThan, policy: policy) else { return false }
            removed.withLock { _ = $0.insert(entry.key.stringValue + "\u{0}" + entry.variantKey) }
            return true
        }
        try await memory.removeEntries(where: select)
        try await disk.removeEntries(where: select)
        return removed.withLock { $0.count }
    }
}
