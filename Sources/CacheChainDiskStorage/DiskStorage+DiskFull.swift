#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
package import CacheChainCore
import CSQLite

/// A full disk degrades the cache, it does not wedge it: a store that finds no space evicts least recently
/// used entries and tries again, and removing everything works even when SQLite cannot grow its log.
extension DiskStorage {
    /// How many times a store that hit a full disk frees space and tries again.
    static let diskFullRetries = 8

    /// Whether an error means the file system has no space left (`ENOSPC`, `EDQUOT`, `SQLITE_FULL`).
    /// - Parameter error: An error of a write.
    /// - Returns: Whether freeing space may let the write succeed.
    static func isDiskFull(_ error: CacheChainError) -> Bool {
        if let failure = error.underlying as? SystemCallFailure { return failure.isNoSpace }
        if let failure = error.underlying as? SQLiteFailure { return failure.isDiskFull }
        return false
    }

    /// Whether an error opening a cache means the disk cannot be written as it is — full (`ENOSPC`, `EDQUOT`,
    /// `SQLITE_FULL`, or `SQLITE_IOERR`: SQLite could not create its log or shared-memory file) or read-only
    /// (`EROFS`, `EACCES`, `EPERM`, `SQLITE_READONLY`, `SQLITE_CANTOPEN` once the directories exist) — rather than a
    /// wrong path: what a command may work around by opening the cache read-only, or running without it.
    /// - Parameter error: The error of an opening.
    /// - Returns: Whether the disk is full or read-only.
    package static func isFullOrReadOnly(_ error: CacheChainError) -> Bool {
        if let failure = error.underlying as? SystemCallFailure {
            return failure.isNoSpace || [EROFS, EACCES, EPERM].contains(failure.code)
        }
        if let failure = error.underlying as? SQLiteFailure {
            return failure.isDiskFull || [SQLITE_IOERR, SQLITE_READONLY, SQLITE_CANTOPEN].contains(failure.code)
        }
        return false
    }

    /// After a write failed for lack of space: deletes least recently used entries until about `needed`
    /// bytes are freed — their files first, which frees space even when SQLite cannot grow its log, then a
    /// checkpoint that truncates the log, then their rows — and reports each as a `CacheEvent.Kind.evicted` event with the reason `disk-full`.
    ///
    /// The checkpoint may need as much room as the log holds (pages it adds to the database), so that much is
    /// freed on top of `needed`.
    /// - Parameter needed: The bytes the failed write needs.
    /// - Returns: Whether anything was deleted (`false`: the cache is empty, the space is held by others).
    func evictAfterDiskFull(needed: Int) -> Bool {
        var log = stat()
        let needed = needed + (stat(root + "/index.sqlite-wal", &log) == 0 ? Int(log.st_size) : 0)
        guard let victims = try? indexCall({ () throws(CacheChainError) in try index.victims(excluding: -1) }), !victims.isEmpty else {
            return false
        }
        var chosen: [(id: Int64, size: Int, meta: [UInt8], file: String?)] = []
        var freed = 0
        for victim in victims where freed < needed {
            chosen.append(victim)
            freed += victim.size
        }
        for victim in chosen {
            if let file = victim.file { POSIXFile.remove(path(ofFile: file)) }
            index.pendingUses[victim.id] = nil
            readers.forgetUse(of: victim.id)
        }
        index.checkpoint()  // SQLite's log may be what fills the disk: fold it into the database and truncate it
        // With the files gone the rows can usually be deleted; if not, they are misses (file missing) later.
        _ = try? indexCall { () throws(CacheChainError) in
            try index.transaction { () throws(CacheChainError) in
                for victim in chosen { _ = try index.delete(id: victim.id) }
            }
        }
        finishEviction(([], chosen.map { Eviction(size: $0.size, meta: $0.meta, reason: "disk-full") }))
        return true
    }

    /// Deletes every entry file (the bulk of a cache's space), for ``removeAll()`` on a full disk.
    func removeAllEntryFiles() {
        for shard in DirectoryListing.names(in: root) where shard.utf8.count == 2 {
            for name in DirectoryListing.names(in: "\(root)/\(shard)") { POSIXFile.remove("\(root)/\(shard)/\(name)") }
        }
    }

    /// Removes every entry of the cache in `directory` without opening it: its entry files, temporary files and
    /// index (`index.sqlite` with its log), so that the next opening starts empty. The format file and the
    /// `Vary` digest key stay.
    ///
    /// What `cachechain purge --all` falls back on when the cache cannot be opened because the disk is full: SQLite
    /// needs room for its log and shared-memory files just to open, which a disk filled by someone else does not
    /// have. A process that has the cache open at the time keeps reading its own (now unlinked) index, whose
    /// entries are then misses; the files it stores later are orphans that sweeps delete.
    /// - Parameter directory: The cache directory.
    /// - Returns: The number of entry files removed.
    /// - Throws: `CacheChainError` `storage-failed` when a file cannot be removed (a read-only file system).
    package static func removeAllWithoutOpening(directory: String) throws(CacheChainError) -> Int {
        let root = directory + "/v\(formatVersion)"
        var removed = 0
        func remove(_ path: String) throws(CacheChainError) {
            guard unlink(path) == 0 || errno == ENOENT else {
                throw CacheChainError(.storageFailed, "cannot remove \(path): \(String(cString: strerror(errno)))")
            }
        }
        for shard in DirectoryListing.names(in: root) where shard.utf8.count == 2 {
            for name in DirectoryListing.names(in: "\(root)/\(shard)") {
                try remove("\(root)/\(shard)/\(name)")
                removed += 1
            }
        }
        for name in DirectoryListing.names(in: root + "/tmp") { try remove("\(root)/tmp/\(name)") }
        for suffix in ["-wal", "-shm", ""] { try remove(root + "/index.sqlite" + suffix) }
        return removed
    }
}
