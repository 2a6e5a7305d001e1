public import CacheChainCore

extension DiskStorage {
    /// Changes the byte limit (`URLCache.diskCapacity`'s setter), evicting least-recently-used entries at once
    /// when it shrinks.
    ///
    /// The new limit holds for this instance; another instance or process sharing the directory enforces its
    /// own on its next store.
    /// - Parameter newCapacity: The new limit in bytes.
    /// - Throws: `CacheChainError` `storage-failed` when the index cannot be written (the limit is still changed).
    /// - Complexity: O(e log n) for e evicted entries.
    public func setCapacity(_ newCapacity: Int) async throws(CacheChainError) {
        try await io.run { () throws(CacheChainError) in
            capacity = max(0, newCapacity)
            guard configuration.accessMode == .readWrite else { return }  // nothing to evict from a cache this instance never writes
            try flushUses()  // evict by the up-to-date use order
            let outcome = try indexCall { () throws(CacheChainError) in
                try index.transaction { () throws(CacheChainError) in try evictToFit(excluding: -1) }
            }
            finishEviction(outcome)
        }
    }

    /// Inside a transaction: deletes least-recently-used rows until the committed total fits ``capacity``.
    /// - Parameter excluded: A row id never evicted (the one just stored), or -1.
    /// - Returns: The files of the deleted rows (to delete after the commit) and the evicted rows.
    func evictToFit(excluding excluded: Int64) throws(CacheChainError) -> (files: [String], evicted: [Eviction]) {
        var files: [String] = []
        var evicted: [Eviction] = []
        var bytes = try index.totals().bytes
        while bytes > capacity {
            let victims = try index.victims(excluding: excluded)
            if victims.isEmpty { break }
            for victim in victims where bytes > capacity {
                files += try index.delete(id: victim.id)
                evicted.append(Eviction(size: victim.size, meta: victim.meta, reason: "lru"))
                bytes -= victim.size
            }
            bytes = try index.totals().bytes
        }
        return (files, evicted)
    }

    /// After the commit: deletes the evicted rows' files and reports each eviction.
    func finishEviction(_ outcome: (files: [String], evicted: [Eviction])) {
        for file in outcome.files { POSIXFile.remove(path(ofFile: file)) }
        for victim in outcome.evicted {
            let key = try? EntryCodec.decodeMetadata(victim.meta, body: .empty, subject: DiskEntryFile.metadataSubject).key
            configuration.events.emit(CacheEvent(.evicted, key: key, reasons: [victim.reason], bytes: victim.size))
        }
    }

    /// Inside the store transaction, before a new variant of `key` is inserted: deletes the key's least
    /// recently used variants until it holds fewer than ``Configuration/maximumVariantsPerKey``.
    /// - Returns: The files of the deleted rows and the evicted rows (reason `variant-limit`).
    /// - Complexity: O(log n + v) for v variants of the key (at most the limit).
    func evictVariants(ofKey key: String) throws(CacheChainError) -> (files: [String], evicted: [Eviction]) {
        let count = try index.variantCount(key: key)
        guard count >= configuration.maximumVariantsPerKey else { return ([], []) }
        var files: [String] = []
        var evicted: [Eviction] = []
        for victim in try index.leastRecentVariants(key: key, limit: count - configuration.maximumVariantsPerKey + 1) {
            files += try index.delete(id: victim.id)
            evicted.append(Eviction(size: victim.size, meta: victim.meta, reason: "variant-limit"))
        }
        return (files, evicted)
    }

    /// A row deleted to make room: its size, its metadata (to name its key in the event) and why.
    struct Eviction {
        var size: Int
        var meta: [UInt8]
        /// `lru` (capacity) or `variant-limit` (``Configuration/maximumVariantsPerKey``).
        var reason: String
    }
}
