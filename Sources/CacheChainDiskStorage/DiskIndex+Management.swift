import CacheChainCore

extension DiskIndex {
    func deleteKey(_ key: String) throws(CacheChainError) -> [String] {
        let slots = Self.slotRange(forKey: key)
        return try deleting(
            "DELETE FROM entries WHERE id BETWEEN ?1 AND ?2 AND key = ?3 RETURNING file",
            .integer(slots.lowerBound), .integer(slots.upperBound), .text(key)
        )
    }

    func deleteAll() throws(CacheChainError) -> [String] {
        try deleting("DELETE FROM entries RETURNING file")
    }

    func deleteStored(since time: Double) throws(CacheChainError) -> [String] {
        try deleting("DELETE FROM entries WHERE stored_at >= ?1 RETURNING file", .real(time))
    }

    /// Deletes by URL prefix in SQL (one pass over the table, no metadata decoding).
    func deleteURLs(prefix: String) throws(CacheChainError) -> [String] {
        try deleting("DELETE FROM entries WHERE substr(url, 1, length(?1)) = ?1 RETURNING file", .text(prefix))
    }

    /// Deletes every row of a method and URL, whatever the key's discriminator: for `QUERY`, through the partial
    /// index ``queryTargetIndex``.
    func deleteTarget(method: String, url: String) throws(CacheChainError) -> [String] {
        if method == "QUERY" {
            return try deleting("DELETE FROM entries WHERE substr(key, 1, 6) = 'QUERY ' AND url = ?1 RETURNING file", .text(url))
        }
        return try deleting(
            "DELETE FROM entries WHERE url = ?1 AND substr(key, 1, length(?2)) = ?2 RETURNING file", .text(url), .text(method + " ")
        )
    }

    /// Deletes every row tagged with one of the names, through the tag table's `tags_by_name` index.
    func deleteTagged(_ names: [String]) throws(CacheChainError) -> [String] {
        var files: [String] = []
        for name in names {
            files += try deleting("DELETE FROM entries WHERE id IN (SELECT entry_id FROM tags WHERE name = ?1) RETURNING file", .text(name))
        }
        return files
    }

    private func deleting(_ sql: String, _ values: SQLiteValue...) throws(CacheChainError) -> [String] {
        try collectFiles(try database.prepare(sql), values)
    }

    /// Rows of every entry, or of the entries having a userInfo value named `tag`.
    func rows(tagged tag: String? = nil, _ visit: (Row) -> Void) throws(CacheChainError) {
        let columns = "e.id, e.meta, e.body, e.file, e.body_length, e.checksum, e.last_used"
        let statement: SQLiteStatement
        if let tag {
            statement = try database.prepare("SELECT \(columns) FROM tags t JOIN entries e ON e.id = t.entry_id WHERE t.name = ?1")
            try statement.bind(.text(tag), at: 1)
        } else {
            statement = try database.prepare("SELECT \(columns) FROM entries e")
        }
        defer { statement.finish() }
        while try statement.step() { visit(Row(statement)) }
    }

    /// The metadata of one row per distinct key.
    func oneMetaPerKey() throws(CacheChainError) -> [[UInt8]] {
        try database.prepare("SELECT meta FROM entries GROUP BY key").collect { $0.blob(0) }
    }

    /// Runs `PRAGMA integrity_check`; returns SQLite's verdict lines (`["ok"]` when sound).
    func check() throws(CacheChainError) -> [String] {
        try database.prepare("PRAGMA integrity_check").collect { $0.text(0) ?? "" }
    }

    /// The sum of sizes and the row count, computed from the rows (to check the `totals` row).
    func recount() throws(CacheChainError) -> (bytes: Int, count: Int) {
        let statement = try database.prepare("SELECT coalesce(sum(size), 0), count(*) FROM entries")
        return try statement.firstRow { (Int($0.integer(0)), Int($0.integer(1))) } ?? (0, 0)
    }

    /// Every entry file name the index references.
    func referencedFiles() throws(CacheChainError) -> [String] {
        try database.prepare("SELECT file FROM entries WHERE file IS NOT NULL").collect { $0.text(0) }
    }
}
