import CSQLite
import CXXHash
import CacheChainCore

/// The SQLite index of a ``DiskStorage`` directory: one row per stored variant, LRU order, exact totals.
///
/// Schema (`PRAGMA user_version` = the format version, ``EntryCodec/version``; an index of an older schema
/// is replaced by an empty one):
/// - `entries`: `id`, `key`, `variant`, `url`, `stored_at`, `last_used` (µs, indexed: LRU eviction), `size`
///   (bytes counted against the capacity), `body_length`, `checksum` (``EntryChecksum``: XXH3-64 of
///   metadata + body), `meta` (``EntryCodec`` metadata), `body` (inline bodies) or `file` (entry file name, partially
///   indexed: orphan sweep), `vary` (the response's `Vary` names, ``VaryFields/names(in:)`` joined by commas)
///   and `variant_id` (``variantID(key:variant:)``, indexed: one variant is found, replaced or removed
///   without reading the key's others).
/// - `vary_specs`: `(key, vary, variants)` for every distinct non-empty `vary` of a key, with its number of
///   rows, kept by triggers: what a lookup for a request needs to compute the request's variant keys.
/// - The row id is the key's address: the variants of a key live in its ``slotRange(forKey:)``, the 4,096
///   ids that share the top 52 bits of the key's XXH64 hash. A lookup is one descent of the table's own
///   B-tree (a range of row ids, checked against the key), not a descent of a hash index followed by one of
///   the table; two keys whose hashes share those 52 bits share a range and are told apart by the key.
/// - `tags`: `(entry_id, name)` per userInfo name, for purge by tag without decoding every entry.
/// - `totals`: one row with the byte and entry counts, kept exact by triggers in the same transactions.
///
/// WAL journal, `busy_timeout` for other processes, `BEGIN IMMEDIATE` for writes; statements are
/// prepared once and reused.
package final class DiskIndex {
    static let schemaVersion = Int64(EntryCodec.version)

    /// How the index reads: through a memory map of the database file (no read syscalls, no copies into
    /// SQLite's page cache), which keeps a hit flat as the index grows; the page cache stays modest.
    /// (Package-visible, with ``lookupQuery`` and ``slotRange(forKey:)``, for the benchmark's raw SQLite baseline.)
    package static let readSettings = "PRAGMA mmap_size = \(1 << 30); PRAGMA cache_size = -8192"

    /// A lookup: every variant of a key, found in its ``slotRange(forKey:)`` (`?1`…`?2`) and checked against the
    /// key itself (`?3`).
    package static let lookupQuery =
        "SELECT id, meta, body, file, body_length, checksum, last_used FROM entries WHERE id BETWEEN ?1 AND ?2 AND key = ?3"
    /// A lookup for a request: at most two of the key's rows (one row answers alone; with two or more, the
    /// request's variants are looked up one by one instead).
    static let firstRowsQuery = lookupQuery + " LIMIT 2"
    /// One variant of a key, through the `variant_id` index.
    static let variantQuery =
        "SELECT id, meta, body, file, body_length, checksum, last_used FROM entries WHERE variant_id = ?1 AND key = ?2 AND variant = ?3"

    /// How many low bits of a row id number the variants of one key (4,096 slots per key).
    static let slotBits = 12

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
    let firstRowsStatement: SQLiteStatement
    let variantStatement: SQLiteStatement
    let varySpecsStatement: SQLiteStatement
    let variantCountStatement: SQLiteStatement
    let leastRecentVariantsStatement: SQLiteStatement
    private let recencyRankStatement: SQLiteStatement
    private let insertStatement: SQLiteStatement
    private let slotsStatement: SQLiteStatement
    private let insertTagStatement: SQLiteStatement
    private let deleteVariantStatement: SQLiteStatement
    private let deleteIfUnchangedStatement: SQLiteStatement
    private let totalsStatement: SQLiteStatement
    private let victimsStatement: SQLiteStatement
    private let deleteByIDStatement: SQLiteStatement
    private let touchStatement: SQLiteStatement
    private let fileReferencedStatement: SQLiteStatement

    /// Opens the index; `readOnly` opens an existing one of the current schema without writing anything.
    init(path: String, durable: Bool, readOnly: Bool = false) throws(CacheChainError) {
        database = try readOnly ? Self.openForReading(path) : SQLiteDatabase(path: path)
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

    private static let schema = """
        CREATE TABLE IF NOT EXISTS entries (
            id INTEGER PRIMARY KEY,
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
            file TEXT,
            vary TEXT NOT NULL,
            variant_id INTEGER NOT NULL
        );
        CREATE INDEX IF NOT EXISTS entries_by_use ON entries (last_used);
        CREATE INDEX IF NOT EXISTS entries_by_variant ON entries (variant_id);
        CREATE TABLE IF NOT EXISTS vary_specs (
            key TEXT NOT NULL, vary TEXT NOT NULL, variants INTEGER NOT NULL, PRIMARY KEY (key, vary)
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS entries_by_file ON entries (file) WHERE file IS NOT NULL;
        CREATE TABLE IF NOT EXISTS tags (entry_id INTEGER NOT NULL, name TEXT NOT NULL);
        CREATE INDEX IF NOT EXISTS tags_by_name ON tags (name);
        CREATE INDEX IF NOT EXISTS tags_by_entry ON tags (entry_id);
        CREATE TABLE IF NOT EXISTS totals (id INTEGER PRIMARY KEY CHECK (id = 0), bytes INTEGER NOT NULL, count INTEGER NOT NULL);
        INSERT OR IGNORE INTO totals (id, bytes, count) VALUES (0, 0, 0);
        CREATE TRIGGER IF NOT EXISTS entries_added AFTER INSERT ON entries BEGIN
            UPDATE totals SET bytes = bytes + NEW.size, count = count + 1 WHERE id = 0;
            INSERT INTO vary_specs (key, vary, variants) SELECT NEW.key, NEW.vary, 1 WHERE NEW.vary != ''
                ON CONFLICT (key, vary) DO UPDATE SET variants = variants + 1;
        END;
        CREATE TRIGGER IF NOT EXISTS entries_removed AFTER DELETE ON entries BEGIN
            UPDATE totals SET bytes = bytes - OLD.size, count = count - 1 WHERE id = 0;
            DELETE FROM tags WHERE entry_id = OLD.id;
            UPDATE vary_specs SET variants = variants - 1 WHERE key = OLD.key AND vary = OLD.vary;
            DELETE FROM vary_specs WHERE key = OLD.key AND vary = OLD.vary AND variants <= 0;
        END;
        PRAGMA user_version = \(schemaVersion);
        """

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
        let statement = try database.prepare("PRAGMA user_version")
        defer { statement.finish() }
        return try statement.step() ? statement.integer(0) : 0
    }

    /// The XXH64 (seed 0) of the key's UTF-8 bytes, as a signed integer: where ``slotRange(forKey:)`` starts.
    static func keyHash(_ key: String) -> Int64 {
        var key = key
        return Int64(bitPattern: key.withUTF8 { XXH64($0.baseAddress, $0.count, 0) })
    }

    /// The row ids the variants of `key` may take: its ``keyHash(_:)`` with the low ``slotBits`` cleared, up to
    /// the same with them set (clearing or setting low bits never changes the sign, so the range is ordered).
    package static func slotRange(forKey key: String) -> ClosedRange<Int64> {
        let first = keyHash(key) & ~((1 << Int64(slotBits)) - 1)
        return first...(first | ((1 << Int64(slotBits)) - 1))
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

    // MARK: Rows

    /// Every variant of `key`.
    /// - Parameter slots: The key's ``slotRange(forKey:)``; tests pass another to make two keys share one.
    /// - Complexity: O(log n + v) for v variants of the key.
    func lookup(key: String, slots: ClosedRange<Int64>? = nil) throws(CacheChainError) -> [Row] {
        let slots = slots ?? Self.slotRange(forKey: key)
        try lookupStatement.reset(.integer(slots.lowerBound), .integer(slots.upperBound), .text(key))
        return try rows(of: lookupStatement)
    }

    /// Reads every row a reset lookup statement returns, then finishes it.
    func rows(of statement: SQLiteStatement) throws(CacheChainError) -> [Row] {
        defer { statement.finish() }
        var rows: [Row] = []
        while try statement.step() {
            rows.append(Row(
                id: statement.integer(0),
                meta: statement.blob(1),
                body: statement.isNull(2) ? nil : statement.blob(2),
                file: statement.text(3),
                bodyLength: Int(statement.integer(4)),
                checksum: UInt64(bitPattern: statement.integer(5)),
                lastUsed: statement.integer(6)
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
    /// The 64 least recently used rows but `excluded`: id, size, metadata and entry file.
    func victims(excluding excluded: Int64) throws(CacheChainError) -> [(id: Int64, size: Int, meta: [UInt8], file: String?)] {
        try victimsStatement.reset(.integer(excluded))
        defer { victimsStatement.finish() }
        var rows: [(id: Int64, size: Int, meta: [UInt8], file: String?)] = []
        while try victimsStatement.step() {
            rows.append((victimsStatement.integer(0), Int(victimsStatement.integer(1)), victimsStatement.blob(2), victimsStatement.text(3)))
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
