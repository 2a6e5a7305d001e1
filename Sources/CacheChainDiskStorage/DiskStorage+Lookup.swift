public import CacheChainCore
import CacheChainPolicy
public import HTTPTypes

/// Lookups: every variant of a key, or only those that may answer a request; each read checked.
extension DiskStorage {
    /// Returns every stored variant for a key, most recently stored first, each checked.
    /// - Parameter key: The primary key.
    /// - Returns: The variants; small bodies in memory, bodies above ``Configuration/inMemoryBodyLimit`` as
    ///   file regions.
    /// - Throws: `CacheChainError` `integrity-check-failed` when every stored variant was damaged (they
    ///   are removed), `storage-failed` when the index cannot be read.
    /// - Complexity: O(log n) in the number of entries (one descent of the index's row-id B-tree), plus
    ///   reading the bodies.
    public func entries(for key: CacheKey) async throws(CacheChainError) -> [CacheEntry] {
        let keyString = key.stringValue
        let lookUp = { (index: DiskIndex) throws(CacheChainError) -> [DiskIndex.Row] in try index.lookup(key: keyString) }
        if let found = readOnCallersThread(key: key, rows: lookUp) { return found }
        return try await io.run { () throws(CacheChainError) in
            try readChecked(key: key) { () throws(CacheChainError) in try lookUp(index) }
        }
    }

    /// Returns the variants of a key that may answer a request, each checked: the key's only variant, or
    /// the variants whose variant key is the request's under one of the `Vary` name lists stored for the key
    /// (and the variant without `Vary`). The other variants are not read — unless none is found and a `Vary` list
    /// names a content-negotiation field (`NegotiationFields`): then every variant of the key is returned, for the
    /// policy engine's negotiation. (Declared `async` so that a direct
    /// call picks it over the protocol's default, which is `async`.)
    ///
    /// Like ``entries(for:)``, a lookup whose entries hold bodies of at most 64 KiB runs on the caller's thread
    /// (bounded work: an index descent and a read from the page cache); anything else runs on the storage's thread.
    /// - Parameters:
    ///   - key: The primary key.
    ///   - request: The request.
    /// - Returns: The candidates, most recently stored first.
    /// - Throws: As ``entries(for:)``.
    /// - Complexity: O(log n) index work per distinct `Vary` name list of the key (almost always one),
    ///   whatever the number of its variants, plus reading the candidates' bodies.
    public func entries(for key: CacheKey, matching request: HTTPRequest) async throws(CacheChainError) -> [CacheEntry] {
        let keyString = key.stringValue
        let digestKey = directoryVaryDigestKey
        let lookUp = { (index: DiskIndex) throws(CacheChainError) -> [DiskIndex.Row] in
            let first = try index.firstRows(key: keyString)
            guard first.count > 1 else { return first }
            // Which variants may answer is the policy's to say (`VariantLookup`); the index only runs the lookups.
            let lookup = VariantLookup(for: request, storedVarySpecs: try index.varySpecs(key: keyString), key: digestKey)
            var rows: [DiskIndex.Row] = []
            for variant in lookup.variantKeys {
                if let row = try index.lookup(key: keyString, variant: variant) { rows.append(row) }
            }
            return rows.isEmpty && lookup.everyVariantWhenNoneFound ? try index.lookup(key: keyString) : rows
        }
        if let found = readOnCallersThread(key: key, rows: lookUp) { return found }
        return try await io.run { () throws(CacheChainError) in
            try readChecked(key: key) { () throws(CacheChainError) in try lookUp(index) }
        }
    }

    /// A lookup on the caller's thread with a reader from ``readers``, when it is bounded work and goes well: every
    /// entry found holds a body of at most `DiskReaders.largestInlineBody` bytes, reads and checks cleanly and is within
    /// its stale retention. `nil` sends the lookup to the storage's thread, which handles everything else (damage,
    /// vanished files, retention, a busy or reset index, large bodies) as it always has.
    private func readOnCallersThread(key: CacheKey, rows lookUp: (DiskIndex) throws(CacheChainError) -> [DiskIndex.Row]) -> [CacheEntry]? {
        guard let lane = readers.checkOut() else { return nil }
        defer { readers.checkIn(lane) }
        guard let rows = try? lookUp(lane.index),
            rows.allSatisfy({ $0.bodyLength >= 0 && $0.bodyLength <= DiskReaders.largestInlineBody })
        else { return nil }
        let now = configuration.staleRetention.map { _ in configuration.clock.now() }
        var found: [CacheEntry] = []
        found.reserveCapacity(rows.count)
        for row in rows {
            guard let entry = try? read(row, key: key) else { return nil }
            if let retention = configuration.staleRetention, let now, entry.isPastRetention(retention, at: now) { return nil }
            found.append(entry)
        }
        readers.recordUses(of: rows, refreshingWith: lane.index)
        if found.count > 1 { found.sort { $0.storedAt > $1.storedAt } }
        return found
    }

    /// Reads and checks the rows `lookUp` finds; damaged ones are removed and reported. A file that vanished
    /// (another process replaced the entry) makes the lookup run once more.
    func readChecked(
        key: CacheKey,
        rows lookUp: () throws(CacheChainError) -> [DiskIndex.Row]
    ) throws(CacheChainError) -> [CacheEntry] {
        var attempt = 0
        while true {
            attempt += 1
            let rows = try indexCall(lookUp)
            var found: [CacheEntry] = []
            var used: [DiskIndex.Row] = []
            var damaged: [(DiskIndex.Row, CacheChainError)] = []
            var pastRetention: [DiskIndex.Row] = []
            let now = configuration.staleRetention.map { _ in configuration.clock.now() }
            var retry = false
            for row in rows {
                do throws(CacheChainError) {
                    let entry = try read(row, key: key)
                    if let retention = configuration.staleRetention, let now, entry.isPastRetention(retention, at: now) {
                        pastRetention.append(row)
                        continue
                    }
                    found.append(entry)
                    if isWritable { used.append(row) }
                } catch {
                    // A file that vanished may have been replaced by another process: look again once.
                    if attempt == 1, error.code == .bodyUnreadable {
                        retry = true
                        break
                    }
                    damaged.append((row, error))
                }
            }
            if retry { continue }
            for (row, error) in damaged { discard(row, key: key, error: error) }
            for row in pastRetention { dropPastRetention(row, key: key) }
            if found.isEmpty, let (_, error) = damaged.first {
                throw CacheChainError(
                    .integrityCheckFailed, "the stored entry was damaged and removed: \(error.message)",
                    cacheKey: key, underlying: error
                )
            }
            readers.recordUses(of: used, refreshingWith: index)
            if readers.pendingUseCount >= Self.pendingUseLimit { try? flushUses() }
            if found.count > 1 { found.sort { $0.storedAt > $1.storedAt } }
            return found
        }
    }

    /// Reads and checks one row's entry (its file, or its inline body) against the row's checksum and length:
    /// the one decoding path of lookups and ``checkIntegrity()``.
    func decode(_ row: DiskIndex.Row, inMemoryLimit: Int) throws(CacheChainError) -> CacheEntry {
        if let file = row.file {
            let contents = try DiskEntryFile.read(
                path: path(ofFile: file), metaLength: row.meta.count, bodyLength: row.bodyLength,
                checksum: row.checksum, inMemoryLimit: inMemoryLimit
            )
            return try decodedMetadata.decode(rowID: row.id, meta: contents.meta, body: contents.body)
        }
        let body = row.body ?? []
        guard EntryChecksum.of(row.meta, body) == row.checksum, body.count == row.bodyLength else {
            throw CacheChainError(.integrityCheckFailed, "an index row's inline body does not match its checksum")
        }
        return try decodedMetadata.decode(rowID: row.id, meta: row.meta, body: PipelineBody(body))
    }

    func read(_ row: DiskIndex.Row, key: CacheKey) throws(CacheChainError) -> CacheEntry {
        let entry = try decode(row, inMemoryLimit: configuration.inMemoryBodyLimit)
        guard entry.key == key else {
            throw CacheChainError(.integrityCheckFailed, "a stored entry holds another key than its index row", cacheKey: key)
        }
        return entry
    }

    /// Removes a row whose entry is past ``Configuration/staleRetention`` (only if unchanged since it was read)
    /// and reports it as evicted; read-only, leaves it in place.
    func dropPastRetention(_ row: DiskIndex.Row, key: CacheKey) {
        guard isWritable else { return }
        deleteIfUnchanged(row)
        configuration.events.emit(CacheEvent(.evicted, key: key, reasons: ["stale-retention"], bytes: row.bodyLength))
    }

    /// Removes a damaged row (only if unchanged since it was read) and its file, and reports it (read-only:
    /// only reports it).
    func discard(_ row: DiskIndex.Row, key: CacheKey, error: CacheChainError) {
        guard isWritable else {
            configuration.events.emit(CacheEvent(.storageError, key: key, reasons: [error.code.rawValue, error.message, "left in place: read-only"]))
            return
        }
        deleteIfUnchanged(row)
        configuration.events.emit(CacheEvent(.storageError, key: key, reasons: [error.code.rawValue, error.message]))
    }

    /// Deletes a row read earlier, only if no one replaced it since, and its file.
    private func deleteIfUnchanged(_ row: DiskIndex.Row) {
        let files = (try? indexCall { () throws(CacheChainError) in
            try index.transaction { () throws(CacheChainError) in try index.deleteIfUnchanged(id: row.id, checksum: row.checksum, file: row.file) }
        }) ?? []
        for file in files { POSIXFile.remove(path(ofFile: file)) }
        index.pendingUses[row.id] = nil
        readers.forgetUse(of: row.id)
    }
}
