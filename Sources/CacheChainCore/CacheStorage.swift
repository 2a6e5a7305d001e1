public import CacheChainPolicy
public import Foundation
public import HTTPTypes

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

    /// Returns the stored variants of a key that may answer a request: at least every variant whose
    /// ``CacheEntry/variantKey`` is the request's under that variant's `Vary` (`VaryFields`, with
    /// ``varyDigestKey(for:)``), most recently stored first. What the cache interceptors look up.
    ///
    /// A backend that indexes variants (`DiskStorage`) finds those at a cost independent of how many
    /// variants the key has, looking up what the policy's `VariantLookup` names for the request; the default
    /// returns every variant (``entries(for:)``), which is always correct: the policy engine selects among what it
    /// is given.
    /// - Parameters:
    ///   - key: The primary key.
    ///   - request: The request to answer.
    /// - Returns: The candidate variants; empty when nothing is stored.
    /// - Throws: A storage error; callers treat it as a miss.
    func entries(for key: CacheKey, matching request: HTTPRequest) async throws -> [CacheEntry]

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

    /// The capacity of each tier, known without I/O: the storage decision reads it on every miss to apply its size
    /// rule. Only the capacity fields are meaningful (``StorageUsage/memoryCapacity``, ``StorageUsage/diskCapacity``).
    ///
    /// The default implementation calls ``usage()``; a backend whose usage needs I/O (a disk index, a server)
    /// should answer from what it holds in memory.
    var capacities: StorageUsage { get async }

    /// Removes every entry stored at or after a date (`URLCache.removeCachedResponses(since:)`).
    /// - Parameter date: The earliest ``CacheEntry/storedAt`` to remove.
    func removeEntries(storedSince date: Date) async throws

    /// Removes every entry for which a predicate holds; the building block of purge by prefix or tag.
    /// - Parameter shouldRemove: Decides per entry.
    func removeEntries(where shouldRemove: @Sendable (CacheEntry) -> Bool) async throws

    /// Removes every entry that is stale at `now` and has been for at least `olderThan`
    /// (``CacheEntry/isExpired(at:olderThan:policy:)``): housekeeping, `cachechain purge --expired`.
    ///
    /// The default goes through ``removeEntries(where:)``; backends with their own iteration count exactly
    /// what they removed. Entries a backend cannot read are left alone (they are not known to be expired).
    /// - Parameters:
    ///   - now: The current time.
    ///   - olderThan: How long an entry must have been stale; `.zero` removes every stale entry.
    ///   - policy: The rules that compute freshness lifetimes (the client's `CachePolicyConfiguration`).
    /// - Returns: The number of variants removed.
    /// - Throws: A storage error; the entries not yet removed stay intact.
    func removeExpired(now: Date, olderThan: Duration, policy: CachePolicyConfiguration) async throws -> Int

    /// Removes one variant of a key, leaving the others.
    /// - Parameters:
    ///   - key: The primary key.
    ///   - variantKey: The ``CacheEntry/variantKey`` to remove.
    func remove(_ key: CacheKey, variantKey: String) async throws

    /// Removes every entry whose ``CacheKey/url`` starts with a prefix.
    /// - Parameter urlPrefix: The prefix, e.g. `https://api.example.com/users/42/`.
    func removeEntries(urlPrefix: String) async throws

    /// Removes every entry whose key has `key`'s method and ``CacheKey/url``, whatever its
    /// ``CacheKey/discriminator``: every `QUERY` stored for one URI (each content is a key of its own), which an
    /// unsafe request to the URI invalidates (RFC 9111 §4.4).
    ///
    /// The cache interceptors call it after every unsafe request the origin answers with a 2xx or 3xx, so a
    /// backend should answer it without visiting every entry: `MemoryStorage` looks only when it ever stored
    /// such a key, `DiskStorage` through an index of its `QUERY` rows. The default goes through
    /// ``removeEntries(where:)`` (O(n)).
    /// - Parameter key: A key of the target; its discriminator is ignored.
    /// - Throws: A storage error; callers report it and carry on.
    func removeEntries(sameTargetAs key: CacheKey) async throws

    /// Removes every stored response on an origin whose `Cache-Groups` names one of `groups` (RFC 9875): what a
    /// `Cache-Group-Invalidation` on the response to an unsafe request, `cachechain purge --group` and
    /// `HTTPCacheClient.removeCachedResponses(inGroups:origin:)` do. Only variants that carry the group go; the key's others stay.
    ///
    /// The cache interceptors call it when a response carries the field, so a backend should index its entries
    /// by (origin, group): `MemoryStorage` keeps a dictionary, `DiskStorage` rows in its tag table, `RedisStorage` a
    /// set per origin and group, `EncryptedStorage` HMAC tags (no group name in clear). The default goes through
    /// ``removeEntries(where:)`` (O(n)); a wrapping backend must forward the call to what it wraps, or its inner
    /// backend's index is never used.
    /// - Parameters:
    ///   - groups: The group names, compared character by character.
    ///   - origin: The origin, ``CacheKey/origin`` (`scheme://host[:port]`, lowercased, no default port).
    /// - Throws: A storage error; callers report it and carry on.
    func removeEntries(inGroups groups: [String], origin: String) async throws

    /// Removes every entry that holds a userInfo value named `name` and for which a predicate holds: purge
    /// by tag (e.g. every entry of one user at logout). Backends with an index look only at the entries
    /// that carry the name.
    /// - Parameters:
    ///   - name: The ``CacheUserInfoKey/name`` the entries must hold.
    ///   - shouldRemove: Decides per entry (typically compares the value).
    func removeEntries(withUserInfoNamed name: String, where shouldRemove: @Sendable (CacheEntry) -> Bool) async throws

    /// The key under which entries for this backend digest the secret request fields their response's `Vary`
    /// names (`Authorization`, `Proxy-Authorization`, `Cookie`; see `VaryFields`): the built-in interceptors
    /// make entries and select variants with it.
    ///
    /// A persistent backend returns the same key to every process that shares it, so a variant stored by one
    /// is found by the others (`DiskStorage` keeps one in its directory, readable by its owner only). The
    /// default is the process's key (`VaryDigestKey.perProcess`), right for anything that lives in memory.
    /// - Parameter key: The primary key of the entry (a routing backend picks the key of the backend that
    ///   stores it).
    /// - Returns: The digest key.
    func varyDigestKey(for key: CacheKey) -> VaryDigestKey

    /// Writes out whatever the backend still holds in memory for later (a disk index's batched LRU uses),
    /// so that a process about to exit leaves the backend as complete as it can be. The backend stays usable.
    ///
    /// `HTTPCacheClient.shutdown()` calls it. Backends that write everything at once need no implementation:
    /// the default does nothing. Wrapping backends (tiered, encrypted, routed) flush what they wrap.
    ///
    /// An implementation must be `async` (even when its work is not): a synchronous one would lose, at call
    /// sites in asynchronous code, to the asynchronous default.
    /// - Throws: A storage error when the pending state cannot be written.
    func flushPendingWrites() async throws
}

extension CacheStorage {
    /// The capacities from ``usage()``: a backend that knows them without I/O should implement ``capacities``.
    public var capacities: StorageUsage {
        get async { await usage() }
    }

    /// Default implementation: every variant, ``entries(for:)``.
    /// - Parameters:
    ///   - key: The primary key.
    ///   - request: The request (unused).
    /// - Returns: Every stored variant of the key.
    /// - Throws: What ``entries(for:)`` throws.
    public func entries(for key: CacheKey, matching request: HTTPRequest) async throws -> [CacheEntry] {
        try await entries(for: key)
    }

    /// Default implementation: the process's key, ``VaryDigestKey/perProcess``.
    /// - Parameter key: The primary key (unused).
    /// - Returns: The process's key.
    public func varyDigestKey(for key: CacheKey) -> VaryDigestKey {
        .perProcess
    }

    /// Default implementation: nothing is pending, so nothing is written.
    public func flushPendingWrites() async throws {}

    /// Default implementation through ``removeEntries(where:)``, counting the entries the predicate selected.
    /// - Parameters:
    ///   - now: The current time.
    ///   - olderThan: How long an entry must have been stale.
    ///   - policy: The freshness rules.
    /// - Returns: The number of variants removed.
    public func removeExpired(now: Date, olderThan: Duration, policy: CachePolicyConfiguration) async throws -> Int {
        let removed = LockedValue(0)
        try await removeEntries(where: { entry in
            guard entry.isExpired(at: now, olderThan: olderThan, policy: policy) else { return false }
            removed.withLock { $0 += 1 }
            return true
        })
        return removed.withLock { $0 }
    }

    /// Removes every entry stale at `now` for at least `olderThan` under the default (private cache) rules.
    ///
    /// ```swift
    /// let removed = try await myStorage.removeExpired(now: Date(), olderThan: .seconds(86_400))
    /// ```
    /// - Parameters:
    ///   - now: The current time.
    ///   - olderThan: How long an entry must have been stale; every stale entry by default.
    /// - Returns: The number of variants removed.
    /// - Throws: A storage error.
    public func removeExpired(now: Date, olderThan: Duration = .zero) async throws -> Int {
        try await removeExpired(now: now, olderThan: olderThan, policy: CachePolicyConfiguration())
    }

    /// Default implementation: removes the matching variants key by key through ``removeEntries(where:)``.
    /// - Parameter date: The earliest ``CacheEntry/storedAt`` to remove.
    public func removeEntries(storedSince date: Date) async throws {
        try await removeEntries(where: { $0.storedAt >= date })
    }

    /// Default implementation: reads the key's variants, removes the key and stores the others back.
    /// - Parameters:
    ///   - key: The primary key.
    ///   - variantKey: The variant to remove.
    public func remove(_ key: CacheKey, variantKey: String) async throws {
        let variants = try await entries(for: key)
        guard variants.contains(where: { $0.variantKey == variantKey }) else { return }
        try await remove(key)
        for entry in variants.reversed() where entry.variantKey != variantKey { try await store(entry) }
    }

    /// Default implementation through ``removeEntries(where:)``.
    /// - Parameter urlPrefix: The URL prefix.
    public func removeEntries(urlPrefix: String) async throws {
        try await removeEntries(where: { $0.key.url.hasPrefix(urlPrefix) })
    }

    /// Default implementation through ``removeEntries(where:)``: O(n).
    /// - Parameter key: A key of the target; its discriminator is ignored.
    public func removeEntries(sameTargetAs key: CacheKey) async throws {
        try await removeEntries(where: { $0.key.isSameTarget(as: key) })
    }

    /// Default implementation through ``removeEntries(where:)``.
    /// - Parameters:
    ///   - name: The userInfo name the entries must hold.
    ///   - shouldRemove: Decides per entry.
    public func removeEntries(withUserInfoNamed name: String, where shouldRemove: @Sendable (CacheEntry) -> Bool) async throws {
        try await removeEntries(where: { $0.cached.userInfo.names.contains(name) && shouldRemove($0) })
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
