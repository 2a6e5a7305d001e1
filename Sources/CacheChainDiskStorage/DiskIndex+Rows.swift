import CacheChainCore

/// The index's rows: reading a key's variants, inserting, deleting, totals, recency.
extension DiskIndex {
    struct Row {
        var id: Int64
        var meta: [UInt8]
        var body: [UInt8]?
        var file: String?
        var bodyLength: Int
        var checksum: UInt64
        /// The last use recorded in the index (a microsecond stamp).
        var lastUsed: Int64

        /// Reads the statement's current row, whose columns are `id, meta, body, file, body_length, checksum,
        /// last_used` in that order.
        init(_ statement: SQLiteStatement) {
            id = statement.integer(0)
            meta = statement.blob(1)
            body = statement.isNull(2) ? nil : statement.blob(2)
            file = statement.text(3)
            bodyLength = Int(statement.integer(4))
            checksum = UInt64(bitPattern: statement.integer(5))
            lastUsed = statement.integer(6)
        }
    }

    /// Every variant of `key`.
    /// - Parameter slots: The key's ``slotRange(forKey:)``; tests pass another to make two keys share one.
    /// - Complexity: O(log n + v) for v variants of the key.
    func lookup(key: String, slots: ClosedRange<Int64>? = nil) throws(CacheChainError) -> [Row] {
        let slots = slots ?? Self.slotRange(forKey: key)
        try lookupStatement.reset(.integer(slots.lowerBound), .integer(slots.upperBound), .text(key))
        return try lookupStatement.collect { Row($0) }
    }

    struct NewRow {
        var key: String
        var variant: String
        var url: String
        var storedAt: Double
        var lastUsed: Int64
        var size: Int
        var bodyLength: Int
        var checksum: UInt64
        var meta: [UInt8]
        var body: [UInt8]?
        var file: String?
        var tags: [String]
        /// The response's `Vary` names joined by commas (empty without `Vary`).
        var vary: String = ""
    }

    /// Inserts a row at the first free id of its key's slot range (the caller removed the previous variant in
    /// the same transaction).
    /// - Parameter slots: The key's ``slotRange(forKey:)``; tests pass another to make two keys share one.
    /// - Returns: The new row's id.
    /// - Throws: `storage-failed` when every slot of the range is taken (4,096 variants stored under keys
    ///   that share a range), or when SQLite fails.
    func insert(_ row: NewRow, slots: ClosedRange<Int64>? = nil) throws(CacheChainError) -> Int64 {
        let slots = slots ?? Self.slotRange(forKey: row.key)
        let id = try firstFreeSlot(in: slots, key: row.key)
        try insertStatement.run(
            .integer(id), .text(row.key), .text(row.variant), .text(row.url), .real(row.storedAt),
            .integer(row.lastUsed), .integer(Int64(row.size)), .integer(Int64(row.bodyLength)),
            .integer(Int64(bitPattern: row.checksum)), .blob(row.meta), row.body.map { .blob($0) } ?? .null,
            row.file.map { .text($0) } ?? .null, .text(row.vary), .integer(Self.variantID(key: row.key, variant: row.variant))
        )
        for tag in row.tags { try insertTagStatement.run(.integer(id), .text(tag)) }
        return id
    }

    /// The lowest id of `slots` no row holds (usually the first: a key has few variants).
    private func firstFreeSlot(in slots: ClosedRange<Int64>, key: String) throws(CacheChainError) -> Int64 {
        try slotsStatement.reset(.integer(slots.lowerBound), .integer(slots.upperBound))
        defer { slotsStatement.finish() }
        var candidate = slots.lowerBound
        while try slotsStatement.step() {
            guard slotsStatement.integer(0) == candidate else { break }
            guard candidate < slots.upperBound else {
                throw CacheChainError(
                    .storageFailed,
                    "cannot store another variant of \(key): all \(slots.count) index slots of its key are taken; "
                        + "remove its stored variants (removeCachedResponse) or cache fewer variants of it"
                )
            }
            candidate += 1
        }
        return candidate
    }

    /// Deletes the variant; returns the entry files that are no longer referenced.
    /// - Complexity: O(log n), whatever the number of variants.
    func deleteVariant(key: String, variant: String) throws(CacheChainError) -> [String] {
        try collectFiles(deleteVariantStatement, .integer(Self.variantID(key: key, variant: variant)), .text(key), .text(variant))
    }

    /// Deletes a row only if it still holds the entry that was read (another process may have replaced it).
    /// A row's id is reused when its key's variant is stored again (``insert(_:slots:)`` takes the first free
    /// slot), so "unchanged" means the same id, checksum and entry file: a new entry file of the same bytes
    /// is never mistaken for the damaged one.
    func deleteIfUnchanged(id: Int64, checksum: UInt64, file: String?) throws(CacheChainError) -> [String] {
        try collectFiles(
            deleteIfUnchangedStatement, .integer(id), .integer(Int64(bitPattern: checksum)), file.map { .text($0) } ?? .null
        )
    }

    func delete(id: Int64) throws(CacheChainError) -> [String] {
        try collectFiles(deleteByIDStatement, .integer(id))
    }

    func collectFiles(_ statement: SQLiteStatement, _ values: SQLiteValue...) throws(CacheChainError) -> [String] {
        try collectFiles(statement, values)
    }

    /// Runs a `DELETE … RETURNING file` statement with `values` bound in order and returns the files it names.
    func collectFiles(_ statement: SQLiteStatement, _ values: [SQLiteValue]) throws(CacheChainError) -> [String] {
        try statement.reset(values)
        return try statement.collect { $0.text(0) }
    }

    func totals() throws(CacheChainError) -> (bytes: Int, count: Int) {
        try totalsStatement.reset()
        return try totalsStatement.firstRow { (Int($0.integer(0)), Int($0.integer(1))) } ?? (0, 0)
    }

    /// The recorded last use of the row at `rank` in order of recency (0 = the most recently used), or `nil`
    /// when there are not that many rows.
    /// - Complexity: O(rank + log n): a walk along the last-use index.
    func lastUse(atRecencyRank rank: Int) throws(CacheChainError) -> Int64? {
        try recencyRankStatement.reset(.integer(Int64(rank)))
        return try recencyRankStatement.firstRow { $0.integer(0) }
    }

    /// The 64 least recently used rows but `excluded`, oldest first: id, size, metadata and entry file.
    func victims(excluding excluded: Int64) throws(CacheChainError) -> [(id: Int64, size: Int, meta: [UInt8], file: String?)] {
        try victimsStatement.reset(.integer(excluded))
        return try victimsStatement.collect { (id: $0.integer(0), size: Int($0.integer(1)), meta: $0.blob(2), file: $0.text(3)) }
    }

    func touch(id: Int64, at time: Int64) throws(CacheChainError) {
        try touchStatement.run(.integer(id), .integer(time))
    }

    func isReferenced(file: String) throws(CacheChainError) -> Bool {
        try fileReferencedStatement.reset(.text(file))
        defer { fileReferencedStatement.finish() }
        return try fileReferencedStatement.step()
    }
}
