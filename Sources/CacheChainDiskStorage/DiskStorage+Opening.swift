public import CacheChainCore
import Foundation

extension DiskStorage {
    /// Opens (creating when needed) a disk cache as ``init(configuration:)`` does, but with the blocking work —
    /// creating and checking the directory, its format and modes, opening SQLite — on the storage's own queue
    /// instead of the caller's thread: the way to open one from async code, where the initializer would block
    /// a thread of the cooperative pool.
    ///
    /// ```swift
    /// let disk = try await DiskStorage.open(configuration: .init(directory: "/var/cache/myapp"))
    /// ```
    /// - Parameter configuration: The directory, capacity and options.
    /// - Returns: The opened storage.
    /// - Throws: See ``init(configuration:)``.
    public static func open(configuration: Configuration) async throws(CacheChainError) -> DiskStorage {
        let io = BlockingIOQueue(label: "cachechain.disk")
        return try await io.run { () throws(CacheChainError) in try DiskStorage(configuration: configuration, io: io) }
    }

    /// Checks (or writes) the directory's format version file. A directory of an older format this build
    /// knows (``olderFormats``) is upgraded by deleting the older format's folder — a cache can always be
    /// refilled, and reading every older layout would keep every older decoder — and reported to `events`
    /// (a `storageError` event with the reasons `older-format-removed` and the format); a newer or unknown
    /// one is refused, so a downgrade never destroys a newer cache.
    static func checkFormat(_ directory: String, events: CacheEventSink) throws(CacheChainError) {
        let path = "\(directory)/\(formatFileName)"
        // A directory reads as empty (`read` fails with EISDIR): say what it is.
        if POSIXFile.isDirectory(path) { throw formatFileIsDirectoryError(path) }
        if let bytes = POSIXFile.readWholeFile(path) {
            let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if let older = olderFormats.first(where: { "\($0)" == text }) {
                try wipeOlderFormat(older, in: directory)
                events.emit(CacheEvent(.storageError, reasons: ["older-format-removed", "format \(older)"]))
                return
            }
            guard text == "\(formatVersion)" else {
                throw formatFileError(bytes, path: path, directory: directory, upgradable: false)
            }
            return
        }
        try POSIXFile.writeAtomically(Array("\(formatVersion)\n".utf8), to: path)
    }

    /// Deletes `v<older>/` (index and entry files of the older format) and records the current format.
    /// Another process of the same build may do the same at the same time; both outcomes are identical.
    private static func wipeOlderFormat(_ older: Int, in directory: String) throws(CacheChainError) {
        let folder = "\(directory)/v\(older)"
        if FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.removeItem(atPath: folder)
            } catch {
                // Another opener may have removed part of it first; what matters is that it is gone now.
                guard !FileManager.default.fileExists(atPath: folder) else {
                    throw CacheChainError(
                        .storageFailed,
                        "cannot delete \(folder), the cache of an older CacheChain format: delete it by hand",
                        underlying: error
                    )
                }
            }
        }
        try POSIXFile.writeAtomically(Array("\(formatVersion)\n".utf8), to: "\(directory)/\(formatFileName)")
    }

    /// Gives the cache's directories and top-level files their owner-only modes (``OwnerOnlyAccess``): the
    /// directory, its format file, `v<format>/` with `tmp/` and every shard folder, and the index files.
    /// Entry files are repaired by the sweep (their folders already keep other users out).
    static func restrictToOwner(directory: String, root: String) throws(CacheChainError) {
        try OwnerOnlyAccess.restrict("\(directory)/\(formatFileName)")
        try OwnerOnlyAccess.restrict(root)
        try OwnerOnlyAccess.restrict(root + "/tmp")
        for name in DirectoryListing.names(in: root) where name.utf8.count == 2 {
            try OwnerOnlyAccess.restrict("\(root)/\(name)")
        }
        for suffix in ["", "-wal", "-shm"] { try OwnerOnlyAccess.restrict(root + "/index.sqlite" + suffix) }
        try OwnerOnlyAccess.restrict("\(root)/\(varyDigestKeyFileName)")
    }

    /// Opens the index; a damaged database file (corrupt pages, or a schema our statements no longer
    /// compile against) is replaced by an empty index.
    static func openIndex(_ root: String, durable: Bool) throws(CacheChainError) -> DiskIndex {
        OwnerOnlyAccess.createFile(root + "/index.sqlite")
        do throws(CacheChainError) {
            return try DiskIndex(path: root + "/index.sqlite", durable: durable)
        } catch {
            guard let failure = error.underlying as? SQLiteFailure, failure.isCorruption || failure.isSchemaMismatch else {
                throw error
            }
            return try resetIndex(root, durable: durable)
        }
    }

    /// Deletes the index database and creates an empty one.
    static func resetIndex(_ root: String, durable: Bool) throws(CacheChainError) -> DiskIndex {
        for suffix in ["", "-wal", "-shm"] { POSIXFile.remove(root + "/index.sqlite" + suffix) }
        OwnerOnlyAccess.createFile(root + "/index.sqlite")
        return try DiskIndex(path: root + "/index.sqlite", durable: durable)
    }

    static func graceSeconds(_ grace: Duration) -> Int {
        Int(grace.components.seconds)
    }

    /// Deletes temporary files older than the grace period (left by killed writers).
    static func sweepTemporaryFiles(_ root: String, grace: Duration) {
        let limit = POSIXFile.now() - graceSeconds(grace)
        for name in DirectoryListing.names(in: root + "/tmp") {
            let path = "\(root)/tmp/\(name)"
            if let time = POSIXFile.modificationTime(path), time <= limit { POSIXFile.remove(path) }
        }
    }

    /// Sweeps one shard directory: files older than the grace period that no index row names.
    func sweepNextShard() {
        sweepShard = (sweepShard + 1) % 256
        sweep(shard: sweepShard)
    }

    private func sweep(shard: Int) {
        let hex = Array("0123456789abcdef")
        let directory = "\(root)/\(hex[shard >> 4])\(hex[shard & 15])"
        let limit = POSIXFile.now() - Self.graceSeconds(configuration.orphanGracePeriod)
        for name in DirectoryListing.names(in: directory) {
            let path = "\(directory)/\(name)"
            try? OwnerOnlyAccess.restrict(path)
            guard let time = POSIXFile.modificationTime(path), time <= limit else { continue }
            if let referenced = try? indexCall({ () throws(CacheChainError) in try index.isReferenced(file: name) }), !referenced {
                POSIXFile.remove(path)
            }
        }
    }

    /// Deletes every file the index does not reference and that is older than
    /// ``Configuration/orphanGracePeriod``: temporary files of killed writers and files of replaced or
    /// removed entries whose deletion was interrupted. Stores do this lazily, one shard at a time.
    /// - Complexity: O(f log n) for f files in the directory.
    public func sweepOrphans() async {
        await io.run {
            guard isWritable else { return }
            Self.sweepTemporaryFiles(root, grace: configuration.orphanGracePeriod)
            for shard in 0..<256 { sweep(shard: shard) }
        }
    }
}
