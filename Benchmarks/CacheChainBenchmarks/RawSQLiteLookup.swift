import CSQLite
import CacheChainDiskStorage
import CacheChainStorage

/// The floor of a disk lookup at scale: the index's own lookup query run straight through the SQLite C API on
/// the index file a ``DiskStorage`` filled (read-only, the same memory map), without CacheChain around it — no
/// key building, no decoding, no entry. What it grows by from 1k to 1M entries is the growth any lookup through
/// that B-tree pays on this machine.
final class RawSQLiteLookup {
    private var database: OpaquePointer?
    private var statement: OpaquePointer?
    private let keys: [String]
    private var next = 0

    /// Opens `indexPath` read-only and prepares the lookup `DiskIndex` runs; `keys` are the probed keys' strings.
    init(indexPath: String, keys: [String]) throws {
        self.keys = keys
        guard sqlite3_open_v2(indexPath, &database, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            throw BenchmarkError("cannot open \(indexPath) read-only")
        }
        guard sqlite3_exec(database, DiskIndex.readSettings, nil, nil, nil) == SQLITE_OK,
              sqlite3_prepare_v3(database, DiskIndex.lookupQuery, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK
        else {
            throw BenchmarkError("cannot apply the index's read settings or prepare its lookup on \(indexPath)")
        }
    }

    deinit {
        sqlite3_finalize(statement)
        sqlite3_close_v2(database)
    }

    /// Looks up the next probed key: binds its slot range and text, steps, copies the metadata out, resets.
    /// - Returns: The number of rows found (1 for every probed key).
    func lookUpNext() -> Int {
        var key = keys[next % keys.count]
        next &+= 1
        let slots = DiskIndex.slotRange(forKey: key)
        sqlite3_bind_int64(statement, 1, slots.lowerBound)
        sqlite3_bind_int64(statement, 2, slots.upperBound)
        key.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { text in
                _ = cachechain_sqlite3_bind_text_transient(statement, 3, text.baseAddress, Int32(text.count))
            }
        }
        var rows = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            let length = Int(sqlite3_column_bytes(statement, 1))
            if let blob = sqlite3_column_blob(statement, 1) {
                let meta = [UInt8](UnsafeRawBufferPointer(start: blob, count: length))
                rows += meta.isEmpty ? 0 : 1
            }
        }
        sqlite3_reset(statement)
        return rows
    }
}
