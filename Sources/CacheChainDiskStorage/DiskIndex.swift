import CSQLite
import CacheChainCore

/// The SQLite index of a ``DiskStorage`` directory: one row per stored variant, LRU order, exact totals
/// (schema and queries in `DiskIndex+Schema.swift`, rows in `DiskIndex+Rows.swift`).
///
/// WAL journal, `busy_timeout` for other processes, `BEGIN IMMEDIATE` for writes; statements are
/// prepared once and reused.
package final class DiskIndex {
    static let schemaVersion = Int64(EntryCodec.version)

    let database: SQLiteDatabase
    /// Last uses recorded by hits and not yet written (written in batches, and when the index is released).
    var pendingUses: [Int64: Int64] = [:]
    let lookupStatement: SQLiteStatement
    let firstRowsStatement: SQLiteStatement
    let variantStatement: SQLiteStatement
    let varySpecsStatement: SQLiteStatement
    let variantCountStatement: SQLiteStatement
    let leastRecentVariantsStatement: SQLiteStatement
    let recencyRankStatement: SQLiteStatement
    let insertStatement: SQLiteStatement
    let slotsStatement: SQLiteStatement
    let insertTagStatement: SQLiteStatement
    let deleteVariantStatement: SQLiteStatement
    let deleteIfUnchangedStatement: SQLiteStatement
    let totalsStatement: SQLiteStatement
    let victimsStatement: SQLiteStatement
    let deleteByIDStatement: SQLiteStatement
    let touchStatement: SQLiteStatement
    let fileReferencedStatement: SQLiteStatement

    /// Opens the index; `readOnly` opens an existing one of the current schema without writing anything.
    convenience init(path: String, durable: Bool, readOnly: Bool = false) throws(CacheChainError) {
        try self.init(database: readOnly ? Self.openForReading(path) : SQLiteDatabase(path: path), path: path, durable: durable, readOnly: readOnly)
    }

    /// Opens a reader of a live index for lookups on a caller's thread (`DiskReaders`): read-only, never `immutable`,
    /// and never waiting for a lock (`busy_timeout` 0: a busy index is a fallback to the storage's thread, not a wait).
    static func reader(path: String) throws(CacheChainError) -> DiskIndex {
        let index = try DiskIndex(database: SQLiteDatabase(path: path, readOnly: true), path: path, durable: false, readOnly: true)
        try index.database.execute("PRAGMA busy_timeout = 0")
        return index
    }

    private init(database: SQLiteDatabase, path: String, durable: Bool, readOnly: Bool) throws(CacheChainError) {
        self.database = database
        try database.execute("PRAGMA busy_timeout = 10000")
        if !readOnly {
            try database.enableWriteAheadLog()
            try database.execute("PRAGMA synchronous = \(durable ? "FULL" : "OFF")")
        }
        try database.execute(Self.readSettings)
        let version = try Self.userVersion(database)
        if readOnly, version != Self.schemaVersion {
            throw CacheChainError(
                .storageFailed,
                "the disk cache index \(path) has schema \(version), this build reads \(Self.schemaVersion): open the cache read-write once to rebuild it"
            )
        }
        if version > 0, version < Self.schemaVersion {
            // An index of an older schema (its rows lack the variant columns): a cache, so it starts over.
            throw CacheChainError(
                .storageFailed, "the disk cache index \(path) has the older schema \(version)",
                underlying: SQLiteFailure(code: SQLITE_ERROR, message: "older schema")
            )
        }
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
        if !readOnly { try database.execute(Self.queryTargetIndex) }
        lookupStatement = try database.prepare(Self.lookupQuery)
        firstRowsStatement = try database.prepare(Self.firstRowsQuery)
        variantStatement = try database.prepare(Self.variantQuery)
        varySpecsStatement = try database.prepare("SELECT vary FROM vary_specs WHERE key = ?1")
        variantCountStatement = try database.prepare("SELECT count(*) FROM entries WHERE id BETWEEN ?1 AND ?2 AND key = ?3")
        leastRecentVariantsStatement = try database.prepare(
            "SELECT id, size, meta FROM entries WHERE id BETWEEN ?1 AND ?2 AND key = ?3 ORDER BY last_used LIMIT ?4"
        )
        recencyRankStatement = try database.prepare("SELECT last_used FROM entries ORDER BY last_used DESC LIMIT 1 OFFSET ?1")
        insertStatement = try database.prepare("""
            INSERT INTO entries (id, key, variant, url, stored_at, last_used, size, body_length, checksum, meta, body, file, vary, variant_id)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
            """)
        slotsStatement = try database.prepare("SELECT id FROM entries WHERE id BETWEEN ?1 AND ?2 ORDER BY id")
        insertTagStatement = try database.prepare("INSERT INTO tags (entry_id, name) VALUES (?1, ?2)")
        deleteVariantStatement = try database.prepare(
            "DELETE FROM entries WHERE variant_id = ?1 AND key = ?2 AND variant = ?3 RETURNING file"
        )
        deleteIfUnchangedStatement = try database.prepare(
            "DELETE FROM entries WHERE id = ?1 AND checksum = ?2 AND file IS ?3 RETURNING file"
        )
        totalsStatement = try database.prepare("SELECT bytes, count FROM totals WHERE id = 0")
        victimsStatement = try database.prepare(
            "SELECT id, size, meta, file FROM entries WHERE id != ?1 ORDER BY last_used LIMIT 64"
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

    /// Opens an existing index for reading. A WAL database needs its shared-memory file, which a read-only
    /// file system (or directory) may not let SQLite create: then it is opened `immutable`.
    private static func openForReading(_ path: String) throws(CacheChainError) -> SQLiteDatabase {
        guard POSIXFile.modificationTime(path) != nil else {
            throw CacheChainError(.storageFailed, "the disk cache index \(path) does not exist or cannot be read")
        }
        let database = try SQLiteDatabase(path: path, readOnly: true)
        do throws(CacheChainError) {
            _ = try userVersion(database)
            return database
        } catch {
            guard let immutable = try? SQLiteDatabase(path: path, readOnly: true, immutable: true), (try? userVersion(immutable)) != nil else {
                throw error
            }
            return immutable
        }
    }

    private static func userVersion(_ database: SQLiteDatabase) throws(CacheChainError) -> Int64 {
        try database.prepare("PRAGMA user_version").firstRow { $0.integer(0) } ?? 0
    }

    // MARK: Transactions

    func begin() throws(CacheChainError) { try database.execute("BEGIN IMMEDIATE") }
    func commit() throws(CacheChainError) { try database.execute("COMMIT") }
    func rollback() { try? database.execute("ROLLBACK") }

    /// Copies the write-ahead log into the database and truncates it (`wal_checkpoint(TRUNCATE)`), giving its
    /// space back to the file system; best effort (readers of other processes may hold it).
    func checkpoint() { try? database.execute("PRAGMA wal_checkpoint(TRUNCATE)") }

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
}
