import CSQLite
import CacheChainCore

/// What SQLite reported, kept as the `underlying` error of a ``CacheChainError``.
struct SQLiteFailure: Error, CustomStringConvertible {
    /// The primary result code (`SQLITE_CORRUPT`, `SQLITE_FULL`…).
    var code: Int32
    /// `sqlite3_errmsg` text.
    var message: String

    /// Whether the database file itself is damaged (corrupt page, not a database).
    var isCorruption: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB }

    /// Whether our own fixed statements failed to compile: the stored schema is not ours any more (a
    /// damaged `sqlite_master` page can still parse, naming tables or columns that do not exist).
    var isSchemaMismatch: Bool { code == SQLITE_ERROR }

    /// Whether the file system had no room for the database or its log.
    var isDiskFull: Bool { code == SQLITE_FULL }

    var description: String { "SQLite error \(code): \(message)" }
}

/// One SQLite connection, owned by one ``DiskStorage`` and used only on its queue (not thread-safe, never shared).
final class SQLiteDatabase {
    private let handle: OpaquePointer

    /// Opens (creating if needed) a database file; or opens it for reading only.
    /// - Parameters:
    ///   - path: The database file.
    ///   - readOnly: Open without writing (nor creating) anything.
    ///   - immutable: With `readOnly`, also tell SQLite the file cannot change (`immutable=1`: no locks, no
    ///     WAL index), which is what lets it read a WAL database on a read-only file system.
    init(path: String, readOnly: Bool = false, immutable: Bool = false) throws(CacheChainError) {
        var handle: OpaquePointer?
        var flags = readOnly ? SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        var name = path
        if readOnly, immutable {
            flags |= SQLITE_OPEN_URI
            let encoded = path.utf8.map { byte -> String in
                let scalar = Character(Unicode.Scalar(byte))
                return byte < 0x80 && (scalar.isLetter || scalar.isNumber || "/._-~".contains(scalar)) ? String(scalar) : "%" + String(byte, radix: 16)
            }
            name = "file:" + encoded.joined() + "?immutable=1"
        }
        let result = sqlite3_open_v2(name, &handle, flags, nil)
        guard result == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let handle { sqlite3_close_v2(handle) }
            throw CacheChainError(
                .storageFailed,
                "cannot open the disk cache index \(path): \(message)",
                underlying: SQLiteFailure(code: result & 0xff, message: message)
            )
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 0)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Switches to WAL journaling. Changing the journal mode needs an exclusive lock that SQLite's busy
    /// handler does not wait for, so a process opening the cache while another creates it retries for up
    /// to 10 seconds.
    func enableWriteAheadLog() throws(CacheChainError) {
        var attempts = 0
        while true {
            let result = sqlite3_exec(handle, "PRAGMA journal_mode = WAL", nil, nil, nil)
            if result == SQLITE_OK { return }
            attempts += 1
            guard result & 0xff == SQLITE_BUSY || result & 0xff == SQLITE_LOCKED, attempts < 1000 else {
                throw failure(result, "switching to WAL")
            }
            sqlite3_sleep(10)
        }
    }

    /// Runs one or more statements that return no rows.
    func execute(_ sql: String) throws(CacheChainError) {
        let result = sqlite3_exec(handle, sql, nil, nil, nil)
        guard result == SQLITE_OK else { throw failure(result, "running \(sql.prefix(60))") }
    }

    /// Compiles a statement for reuse.
    func prepare(_ sql: String) throws(CacheChainError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let result = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard result == SQLITE_OK, let statement else { throw failure(result, "preparing \(sql.prefix(60))") }
        return SQLiteStatement(database: self, handle: statement)
    }

    /// Builds the error for a failed call, naming what was being done.
    func failure(_ result: Int32, _ doing: String) -> CacheChainError {
        let message = String(cString: sqlite3_errmsg(handle))
        let sqlite = SQLiteFailure(code: result & 0xff, message: message)
        if sqlite.isCorruption {
            let text = "the disk cache index is damaged (\(doing)): \(message)"
            return CacheChainError(.integrityCheckFailed, text, underlying: sqlite)
        }
        var hint = ""
        if sqlite.code == SQLITE_FULL { hint = "; the disk is full" }
        if sqlite.code == SQLITE_READONLY || sqlite.code == SQLITE_CANTOPEN { hint = "; check the cache directory is writable" }
        return CacheChainError(.storageFailed, "disk cache index error (\(doing)): \(message)\(hint)", underlying: sqlite)
    }
}

/// A prepared statement, reset after each use and reused.
final class SQLiteStatement {
    private unowned let database: SQLiteDatabase
    private let handle: OpaquePointer

    init(database: SQLiteDatabase, handle: OpaquePointer) {
        self.database = database
        self.handle = handle
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Resets the statement and binds parameters (1-based, in order).
    func reset(_ values: SQLiteValue...) throws(CacheChainError) { try reset(values) }

    func reset(_ values: [SQLiteValue]) throws(CacheChainError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() { try bind(value, at: Int32(offset + 1)) }
    }

    /// Advances; returns whether a row is available.
    func step() throws(CacheChainError) -> Bool {
        let result = sqlite3_step(handle)
        if result == SQLITE_ROW { return true }
        if result == SQLITE_DONE { return false }
        let error = database.failure(result, "stepping a statement")
        sqlite3_reset(handle)
        throw error
    }

    /// Resets, binds and runs to completion, ignoring rows.
    func run(_ values: SQLiteValue...) throws(CacheChainError) {
        try reset(values)
        while try step() {}
        sqlite3_reset(handle)
    }

    func bind(_ value: SQLiteValue, at index: Int32) throws(CacheChainError) {
        let result: Int32
        switch value {
        case .integer(let integer):
            result = sqlite3_bind_int64(handle, index, integer)
        case .real(let real):
            result = sqlite3_bind_double(handle, index, real)
        case .text(let text):
            // The string's own UTF-8 storage (SQLite copies it): no NUL-terminated copy per bind.
            var text = text
            result = text.withUTF8 { utf8 in
                guard let base = utf8.baseAddress, !utf8.isEmpty else {
                    return cachechain_sqlite3_bind_text_transient(handle, index, "", 0)  // empty text, not NULL
                }
                return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                    cachechain_sqlite3_bind_text_transient(handle, index, $0, Int32(utf8.count))
                }
            }
        case .blob(let bytes):
            result = bytes.withUnsafeBytes { buffer in
                let base = buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1)  // an empty blob, not NULL
                return cachechain_sqlite3_bind_blob_transient(handle, index, base, Int32(buffer.count))
            }
        case .null:
            result = sqlite3_bind_null(handle, index)
        }
        guard result == SQLITE_OK else { throw database.failure(result, "binding a parameter") }
    }

    /// Releases the statement's read snapshot (call after reading the last needed row).
    func finish() {
        sqlite3_reset(handle)
    }

    /// Reads every remaining row through `row`, keeping its non-`nil` results, then finishes the statement.
    func collect<T>(_ row: (SQLiteStatement) -> T?) throws(CacheChainError) -> [T] {
        defer { finish() }
        var rows: [T] = []
        while try step() {
            if let value = row(self) { rows.append(value) }
        }
        return rows
    }

    /// Reads the first row through `row` (`nil` when there is none), then finishes the statement.
    func firstRow<T>(_ row: (SQLiteStatement) -> T) throws(CacheChainError) -> T? {
        defer { finish() }
        return try step() ? row(self) : nil
    }

    func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func text(_ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    func blob(_ column: Int32) -> [UInt8] {
        guard let pointer = sqlite3_column_blob(handle, column) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, column))
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}

/// A value bound to a statement parameter.
enum SQLiteValue {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    case null
}
