public import CacheChainCore
public import CacheChainPolicy
public import Foundation

extension DiskStorage {
    /// Removes every variant of a key.
    /// - Parameter key: The primary key.
    /// - Throws: `CacheChainError` when the index cannot be written.
    /// - Complexity: O(log n).
    public func remove(_ key: CacheKey) async throws(CacheChainError) {
        try await io.run { () throws(CacheChainError) in
            try deleteRows { () throws(CacheChainError) in try index.deleteKey(key.stringValue) }
        }
    }

    /// Removes one variant of a key.
    /// - Parameters:
    ///   - key: The primary key.
    ///   - variantKey: The variant.
    /// - Throws: `CacheChainError` when the index cannot be written.
    /// - Complexity: O(log n).
    public func remove(_ key: CacheKey, variantKey: String) async throws(CacheChainError) {
        try await io.run { () throws(CacheChainError) in
            try deleteRows { () throws(CacheChainError) in try index.deleteVariant(key: key.stringValue, variant: variantKey) }
        }
    }

    /// Removes every entry and its file. It works on a full disk: when the index cannot be written for lack of
    /// space, the entry files are deleted first and SQLite's log is checkpointed, then the rows are deleted.
    /// - Throws: `CacheChainError` when the index cannot be written (read-only instance or file system).
    /// - Complexity: O(n).
    public func removeAll() async throws(CacheChainError) {
        try await io.run { () throws(CacheChainError) in
            do throws(CacheChainError) {
                try deleteRows { () throws(CacheChainError) in try index.deleteAll() }
            } catch where Self.isDiskFull(error) {
                // SQLite needs room in its log to delete rows: free the entry files first, fold the log into the
                // database, then delete the rows.
                removeAllEntryFiles()
                index.checkpoint()
                try deleteRows { () throws(CacheChainError) in try index.deleteAll() }
            }
        }
    }

    /// Removes every entry stored at or after a date.
    /// - Parameter date: The earliest `CacheEntry.storedAt` to remove.
    /// - Throws: `CacheChainError` when the index cannot be written.
    /// - Complexity: O(n) inside SQLite; no entry is decoded.
    public func removeEntries(storedSince date: Date) async throws(CacheChainError) {
        try await io.run { () throws(CacheChainError) in
            try deleteRows { () throws(CacheChainError) in try index.deleteStored(since: date.timeIntervalSinceReferenceDate) }
        }
    }

    /// Removes every entry whose URL starts with a prefix.
    /// - Parameter urlPrefix: The prefix, compared with `CacheKey.url`.
    /// - Throws: `CacheChainError` when the index cannot be written.
    /// - Complexity: O(n) inside SQLite; no entry is decoded.
    public func removeEntries(urlPrefix: String) async throws(CacheChainError) {
        try await io.run { () throws(CacheChainError) in
            try deleteRows { () throws(CacheChainError) in try index.deleteURLs(prefix: urlPrefix) }
        }
    }

    /// Removes every entry with `key`'s method and URL, whatever its discriminator (every `QUERY` stored for a
    /// URI).
    /// - Parameter key: A key of the target.
    /// - Throws: `CacheChainError` when the index cannot be written.
    /// - Complexity: O(log n + r) for a `QUERY` target (a partial index of the `QUERY` rows by URL); O(n) inside
    ///   SQLite, no entry decoded, for another method.
    public func removeEntries(sameTargetAs key: CacheKey) async throws(CacheChainError) {
        try await io.run { () throws(CacheChainError) in
            try deleteRows { () throws(CacheChainError) in try index.deleteTarget(method: key.method, url: key.url) }
        }
    }

    /// Removes every entry on an origin whose `Cache-Groups` names one of the groups (RFC 9875): the rows listed
    /// under the groups in the tag table (a tag per group and origin, written with the row), deleted in SQL
    /// without decoding any entry. Entries stored by a build before cache groups have no group tags and stay.
    /// - Parameters:
    ///   - groups: The group names.
    ///   - origin: The origin, `CacheKey.origin`.
    /// - Throws: `CacheChainError` when the index cannot be written.
    /// - Complexity: O(r log n) for the r rows of those groups (the tag table's `tags_by_name` index).
    public func removeEntries(inGroups groups: [String], origin: String) async throws(CacheChainError) {
        guard !groups.isEmpty else { return }
        let tags = groups.map { DiskIndex.groupTag(origin: origin, group: $0) }
        try await io.run { () throws(CacheChainError) in
            try deleteRows { () throws(CacheChainError) in try index.deleteTagged(tags) }
        }
    }

    /// Removes the entries holding a userInfo value named `name` for which the predicate holds.
    /// - Parameters:
    ///   - name: The userInfo name.
    ///   - shouldRemove: Decides per entry.
    /// - Throws: `CacheChainError` when the index cannot be read or written.
    /// - Complexity: O(t log n) for the t entries that hold the name (an indexed tag table).
    public func removeEntries(
        withUserInfoNamed name: String,
        where shouldRemove: @Sendable (CacheEntry) -> Bool
    ) async throws(CacheChainError) {
        try await io.run { () throws(CacheChainError) in
            _ = try removeRows(tagged: name, where: shouldRemove)
        }
    }

    /// Removes every entry for which the predicate holds; it sees each entry with its body (in memory, or a
    /// file region for entries in files).
    /// - Parameter shouldRemove: Decides per entry.
    /// - Throws: `CacheChainError` when the index cannot be read or written.
    /// - Complexity: O(n): every entry's metadata is decoded.
    public func removeEntries(where shouldRemove: @Sendable (CacheEntry) -> Bool) async throws(CacheChainError) {
        try await io.run { () throws(CacheChainError) in
            _ = try removeRows(tagged: nil, where: shouldRemove)
        }
    }

    /// Removes every entry stale at `now` for at least `olderThan`; damaged entries are left to lookups and
    /// ``checkIntegrity()``.
    /// - Parameters:
    ///   - now: The current time.
    ///   - olderThan: How long an entry must have been stale.
    ///   - policy: The freshness rules.
    /// - Returns: The number of variants removed (one replaced by another process meanwhile is not).
    /// - Throws: `CacheChainError` when the index cannot be read or written.
    /// - Complexity: O(n): every entry's metadata is decoded.
    public func removeExpired(now: Date, olderThan: Duration, policy: CachePolicyConfiguration) async throws(CacheChainError) -> Int {
        try await io.run { () throws(CacheChainError) in
            try removeRows(tagged: nil, where: { $0.isExpired(at: now, olderThan: olderThan, policy: policy) })
        }
    }

    /// Every key with a stored variant.
    /// - Returns: The keys.
    /// - Throws: `CacheChainError` when the index cannot be read.
    /// - Complexity: O(n).
    public func keys() async throws(CacheChainError) -> [CacheKey] {
        try await io.run { () throws(CacheChainError) in
            let metas = try indexCall { () throws(CacheChainError) in try index.oneMetaPerKey() }
            return metas.compactMap { try? EntryCodec.decodeMetadata($0, body: .empty, subject: DiskEntryFile.metadataSubject).key }
        }
    }

    /// The byte limit as `StorageUsage.diskCapacity`, without a hop to the storage's thread or a query.
    public var capacities: StorageUsage {
        StorageUsage(diskCapacity: capacity)
    }

    /// Exact disk usage (the sum of entry sizes, kept by the index in every transaction), the capacity and
    /// the number of stored variants, as committed by any process sharing the directory; memory figures
    /// are zero.
    /// - Returns: The usage; zero figures when the index cannot be read.
    /// - Complexity: O(1).
    public func usage() async -> StorageUsage {
        await io.run {
            let totals = (try? indexCall { () throws(CacheChainError) in try index.totals() }) ?? (bytes: 0, count: 0)
            return StorageUsage(diskBytes: totals.bytes, diskCapacity: capacity, entryCount: totals.count)
        }
    }

    /// Removes the rows whose entry the predicate selects; returns how many were removed.
    private func removeRows(tagged tag: String?, where shouldRemove: @Sendable (CacheEntry) -> Bool) throws(CacheChainError) -> Int {
        var doomed: [(id: Int64, checksum: UInt64, file: String?)] = []
        try indexCall { () throws(CacheChainError) in
            try index.rows(tagged: tag) { row in
                let body: PipelineBody
                if let file = row.file {
                    let region = try? BodyFile(path: path(ofFile: file), offset: EntryCodec.headerSize + row.meta.count)
                    body = region.map { PipelineBody(file: $0) } ?? .empty
                } else {
                    body = PipelineBody(row.body ?? [])
                }
                let entry = try? EntryCodec.decodeMetadata(row.meta, body: body, subject: DiskEntryFile.metadataSubject)
                if let entry, shouldRemove(entry) { doomed.append((row.id, row.checksum, row.file)) }
            }
        }
        guard !doomed.isEmpty else { return 0 }
        var removed = 0
        try deleteRows { () throws(CacheChainError) in
            // The totals row is kept by the index in the same transaction: the difference is what was deleted.
            let countBefore = try index.totals().count
            var files: [String] = []
            for row in doomed { files += try index.deleteIfUnchanged(id: row.id, checksum: row.checksum, file: row.file) }
            removed = max(0, countBefore - (try index.totals().count))
            return files
        }
        return removed
    }

    /// Runs deletions in one transaction, then deletes the files they released.
    private func deleteRows(_ body: () throws(CacheChainError) -> [String]) throws(CacheChainError) {
        try requireWritable("remove entries")
        absorbInlineUses()
        let files = try indexCall { () throws(CacheChainError) in
            try index.transaction { () throws(CacheChainError) in
                for (id, time) in index.pendingUses { try index.touch(id: id, at: time) }
                return try body()
            }
        }
        index.pendingUses.removeAll()
        for file in files { POSIXFile.remove(path(ofFile: file)) }
    }
}
