import CXXHash
import CacheChainCore

/// The SQLite index of a ``DiskStorage`` directory: one row per stored variant, LRU order, exact totals.
///
/// Schema (`PRAGMA user_version = 1`):
/// - `entries`: `id`, `key_hash` (XXH64 of the key string, indexed: O(log n) lookup), `key`, `variant`,
///   `url`, `stored_at`, `last_used` (µs, indexed: LRU eviction), `size` (bytes counted against the
///   capacity), `body_length`, `checksum` (``EntryChecksum``: XXH3-64 of metadata + body), `meta` (binary
///   metadata), `body` (inline bodies) or `file` (entry file name, partially indexed: orphan sweep).
/// - `tags`: `(entry_id, name)` per userInfo name, for purge by tag without decoding every entry.
/// - `totals`: one row with the byte and entry counts, kept exact by triggers in the same transactions.
///
/// WAL journal, `busy_timeout` for other processes, `BEGIN IMMEDIATE` for writes; statements are
/// prepared once and reused.
package final class DiskIndex {
    static let schemaVersion: Int64 = 1

    /// How the index reads: through a memory map of the database file (no read syscalls, no copies into
    /// SQLite's page cache), which keeps a hit flat as the index grows; the page cache stays modest.
    /// (Package-visible, with ``lookupQuery`` and ``keyHash(_:)``, for the benchmark's raw SQLite baseline.)
    package static let readSettings = "PRAGMA mmap_size = \(1 << 30); PRAGMA cache_size = -8192"

    /// A lookup: every variant of a key, found by ``keyHash(_:)`` and checked against the key itself.
    package static let lookupQuery =
        "SELECT id, meta, body, file, body_length, checksum, last_used FROM entries WHERE key_hash = ?1 AND key = ?2"

    struct Row {
        var id: Int64
        var meta: [UInt8]
        var body: [UInt8]?
        var file: String?
        var bodyLength: Int
        var checksum: UInt64
        /// The last use recorded in the index (a microsecond stamp).
        var lastUsed: Int64
    }

    let database: SQLiteDatabase
    /// Last uses recorded by hits and not yet written (written in batches, and when the index is released).
    var pendingUses: [Int64: Int64] = [:]
    private let lookupStatement: SQLiteStatement
    private let recencyRankStatement: SQLiteStatement
    private let insertStatement: SQLiteStatement
    private let insertTagStatement: SQLiteStatement
    private let deleteVariantStatement: SQLiteStatement
    private let deleteIfUnchangedStatement: SQLiteStatement
    private let totalsStatement: SQLiteStatement
    private let victimsStatement: SQLiteStatement
    private let deleteByIDStatement: SQLiteStatement
    private let touchStatement: SQLiteStatement
    private let fileReferencedStatement: SQLiteStatement

    init(path: String, durable: Bool) throws(CacheChainError) {
        database = try SQLiteDatabase(path: path)
        try database.execute("PRAGMA busy_timeout = 10000")
        try database.enableWriteAheadLog()
        try database.execute("PRAGMA synchronous = \(durable ? "FULL" : "OFF")")
        try database.execute(Self.readSettings)
        let version = try Self.userVersion(database)
        if version > Self.schemaVersion {
            throw CacheChainError(
                .invalidConfiguration,
                "the disk cache index \(path) has schema version \(version); this build reads \(Self.schemaVersion): "
                    + "use another directory or delete this one"
            )
        }
        if version < Self.schemaVersion {
            try database.execute("BEGIN IMMEDIATE")
            do throws(CacheChainError) {
                try database.execute(Self.schema)
                try database.execute("COMMIT")
            } catch {
                try? database.execute("ROLLBACK")
                throw error
            }
        }
        lookupStatement = try database.prepare(Self.lookupQuery)
        recencyRankStatement = try database.prepare("SELECT last_used FROM entries ORDER BY last_used DESC LIMIT 1 OFFSET ?1")
        insertStatement = try database.prepare("""
            INSERT INTO entries (key_hash, key, variant, url, stored_at, last_used, size, body_length, checksum, meta, body, file)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
            """)
        insertTagStatement = try database.prepare("INSERT INTO tags (entry_id, name) VALUES (?1, ?2)")
        deleteVariantStatement = try database.prepare(
            "DELETE FROM entries WHERE key_hash = ?1 AND key = ?2 AND variant = ?3 RETURNING file"
        )
        deleteIfUnchangedStatement = try database.prepare("DELETE FROM entries WHERE id = ?1 AND checksum = ?2 RETURNING file")
        totalsStatement = try database.prepare("SELECT bytes, count FROM totals WHERE id = 0")
        victimsStatement = try database.prepare(
            "SELECT id, size, meta FROM entries WHERE id != ?1 ORDER BY last_used LIMIT 64"
        )
        deleteByIDStatement = try database.prepare("DELETE FROM entries WHERE id = ?1 RETURNING file")
        touchStatement = try database.prepare("UPDATE entries SET last_used = max(last_used, ?2) WHERE id = ?1")
        fileReferencedStatement = try database.prepare("SELECT 1 FROM entries WHERE file = ?1 LIMIT 1")
    }

    deinit {
        guard !pendingUses.isEmpty, (try? begin()) != nil else { return }
        for (id, time) in pendingUses { try? touch(id: id, at: time) }
        try? commit()
    }

    private static let schema = """
        CREATE TABLE IF NOT EXISTS entries (
            id INTEGER PRIMARY KEY,
            key_hash INTEGER NOT NULL,
            key TEXT NOT NULL,
            variant TEXT NOT NULL,
            url TEXT NOT NULL,
            stored_at REAL NOT NULL,
            last_used INTEGER NOT NULL,
            size INTEGER NOT NULL,
            body_length INTEGER NOT NULL,
            checksum INTEGER NOT NULL,
            meta BLOB NOT NULL,
            body BLOB,
            file TEXT
        );
        CREATE INDEX IF NOT EXISTS entries_by_key ON entries (key_hash);
        CREATE INDEX IF NOT EXISTS entries_by_use ON entries (last_used);
        CREATE INDEX IF NOT EXISTS entries_by_file ON entries (file) WHERE file IS NOT NULL;
        CREATE TABLE IF NOT EXISTS tags (entry_id INTEGER NOT NULL, name TEXT NOT NULL);
        CREATE INDEX IF NOT EXISTS tags_by_name ON tags (name);
        CREATE INDEX IF NOT EXISTS tags_by_entry ON tags (entry_id);
        CREATE TABLE IF NOT EXISTS totals (id INTEGER PRIMARY KEY CHECK (id = 0), bytes INTEGER NOT NULL, count INTEGER NOT NULL);
        INSERT OR IGNORE INTO totals (id, bytes, count) VALUES (0, 0, 0);
        CREATE TRIGGER IF NOT EXISTS entries_added AFTER INSERT ON entries BEGIN
            UPDATE totals SET bytes = bytes + NEW.size, count = count + 1 WHERE id = 0;
        END;
        CREATE TRIGGER IF NOT EXISTS entries_removed AFTER DELETE ON entries BEGIN
            UPDATE totals SET bytes = bytes - OLD.size, count = count - 1 WHERE id = 0;
            DELETE FROM tags WHERE entry_id = OLD.id;
        END;
        PRAGMA user_version = 1;
        """

    private static func userVersion(_ database: SQLiteDatabase) throws(CacheChainError) -> Int64 {
        let statement = try database.prepare("PRAGMA user_version")
        defer { statement.finish() }
        return try statement.step() ? statement.integer(0) : 0
    }

    /// The XXH64 (seed 0) of the key's UTF-8 bytes, as a signed integer: the indexed `key_hash` column.
    package static func keyHash(_ key: String) -> Int64 {
        var key = key
        return Int64(bitPattern: key.withUTF8 { XXH64($0.baseAddress, $0.count, 0) })
    }

    // MARK: Transactions

    func begin() throws(CacheChainError) { try database.execute("BEGIN IMMEDIATE") }
    func commit() throws(CacheChainError) { try database.execute("COMMIT") }
    func rollback() { try? database.execute("ROLLBACK") }

    /// Runs `body` in one write transaction, rolled back when it throws.
    func transaction<Result>(_ body: () throws(CacheChainError) -> Result) throws(CacheChainError) -> Result {
        try begin()
        do throws(CacheChainError) {
            let result = try body()
            try commit()
            return result
        } catch {
            rollback()
            throw error
        }
    }

    // MARK: Rows

    func lookup(key: String) throws(CacheChainError) -> [Row] {
        try lookupStatement.reset(.integer(Self.keyHash(key)), .text(key))
        defer { lookupStatement.finish() }
        var rows: [Row] = []
        while try lookupStatement.step() {
            rows.append(Row(
                id: lookupStatement.integer(0),
                meta: lookupStatement.blob(1),
                body: lookupStatement.isNull(2) ? nil : lookupStatement.blob(2),
                file: lookupStatement.text(3),
                bodyLength: Int(lookupStatement.integer(4)),
                checksum: UInt64(bitPattern: lookupStatement.integer(5)),
                lastUsed: lookupStatement.integer(6)
            ))
        }
        return rows
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
    }

    /// Inserts a row (the caller removed the previous variant in the same transaction).
    func insert(_ row: NewRow) throws(CacheChainError) -> Int64 {
        try insertStatement.run(
            .integer(Self.keyHash(row.key)), .text(row.key), .text(row.variant), .text(row.url), .real(row.storedAt),
            .integer(row.lastUsed), .integer(Int64(row.size)), .integer(Int64(row.bodyLength)),
            .integer(Int64(bitPattern: row.checksum)), .blob(row.meta), row.body.map { .blob($0) } ?? .null,
            row.file.map { .text($0) } ?? .null
        )
        let id = lastInsertedID()
        for tag in row.tags { try insertTagStatement.run(.integer(id), .text(tag)) }
        return id
    }

    private func lastInsertedID() -> Int64 { database.lastInsertRowID }

    /// Deletes the variant; returns the entry files that are no longer referenced.
    func deleteVariant(key: String, variant: String) throws(CacheChainError) -> [String] {
        try collectFiles(deleteVariantStatement, .integer(Self.keyHash(key)), .text(key), .text(variant))
    }

    /// Deletes a row only if it still holds the entry that was read (another process may have replaced it).
    func deleteIfUnchanged(id: Int64, checksum: UInt64) throws(CacheChainError) -> [String] {
        try collectFiles(deleteIfUnchangedStatement, .integer(id), .integer(Int64(bitPattern: checksum)))
    }

    func delete(id: Int64) throws(CacheChainError) -> [String] {
        try collectFiles(deleteByIDStatement, .integer(id))
    }

    private func collectFiles(_ statement: SQLiteStatement, _ values: SQLiteValue...) throws(CacheChainError) -> [String] {
        try statement.reset()
        for (offset, value) in values.enumerated() { try statement.bind(value, at: Int32(offset + 1)) }
        defer { statement.finish() }
        var files: [String] = []
        while try statement.step() {
            if let file = statement.text(0) { files.append(file) }
        }
        return files
    }

    func totals() throws(CacheChainError) -> (bytes: Int, count: Int) {
        try totalsStatement.reset()
        defer { totalsStatement.finish() }
        guard try totalsStatement.step() else { return (0, 0) }
        return (Int(totalsStatement.integer(0)), Int(totalsStatement.integer(1)))
    }

    /// The recorded last use of the row at `rank` in order of recency (0 = the most recently used), or `nil`
    /// when there are not that many rows.
    /// - Complexity: O(rank + log n): a walk along the last-use index.
    func lastUse(atRecencyRank rank: Int) throws(CacheChainError) -> Int64? {
        try recencyRankStatement.reset(.integer(Int64(rank)))
        defer { recencyRankStatement.finish() }
        return try recencyRankStatement.step() ? recencyRankStatement.integer(0) : nil
    }

    /// The least recently used rows, oldest first, never `excluded`.
    func victims(excluding excluded: Int64) throws(CacheChainError) -> [(id: Int64, size: Int, meta: [UInt8])] {
        try victimsStatement.reset(.integer(excluded))
        defer { victimsStatement.finish() }
        var rows: [(id: Int64, size: Int, meta: [UInt8])] = []
        while try victimsStatement.step() {
            rows.append((victimsStatement.integer(0), Int(victimsStatement.integer(1)), victimsStatement.blob(2)))
        }
        return rows
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
