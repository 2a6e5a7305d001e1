import CXXHash

/// What the index holds and where: its schema, its queries, and the row ids a key's variants take.
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
/// - `entries_by_query_url`: the `QUERY` rows by `url` (``queryTargetIndex``): a URI's `QUERY` entries are found
///   without a scan when an unsafe request invalidates them.
/// - `tags`: `(entry_id, name)` per userInfo name, for purge by tag without decoding every entry, and per cache group
///   of the entry's response (RFC 9875: ``groupTag(origin:group:)``), for group invalidation without a scan.
/// - `totals`: one row with the byte and entry counts, kept exact by triggers in the same transactions.
extension DiskIndex {
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

    /// The `QUERY` rows by URL (a partial index: other rows cost nothing), so that an unsafe request's invalidation
    /// of a URI's `QUERY` entries is not a scan. Created when a read-write index opens, on an index of this schema
    /// made before it too.
    static let queryTargetIndex =
        "CREATE INDEX IF NOT EXISTS entries_by_query_url ON entries (url) WHERE substr(key, 1, 6) = 'QUERY '"

    /// The tables, indexes and triggers of schema ``schemaVersion``, created in one transaction.
    static let schema = """
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
}
