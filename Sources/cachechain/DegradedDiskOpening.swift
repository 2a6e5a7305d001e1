import CacheChain

/// A cache directory opened by `batch` as well as the disk allows: read-write when it can be written; read-only
/// when it cannot (a disk filled by someone else, a read-only file system or directory), so hits are still served
/// and misses fetched without storing; no cache at all when it cannot even be read (a new directory on a full
/// disk). Each degradation is a warning on stderr and a note in the hello, as `get` degrades. Any other failure
/// (a path that cannot be created, another disk format) stays an error: a long-running helper does not start
/// without its cache over a typo.
struct DegradedDiskOpening {
    /// The storage: the directory's `DiskStorage`, or `nil` when it could not be opened at all.
    let storage: DiskStorage?
    /// What was given up, for the hello's `config` (`nil` when the directory opened read-write).
    let note: String?

    /// Opens a cache directory, degrading as described above.
    /// - Parameters:
    ///   - directory: The cache directory.
    ///   - capacity: Its byte limit.
    /// - Returns: The storage and what was given up.
    /// - Throws: `CacheChainError` when the directory cannot be opened for another reason than a full or read-only
    ///   disk (a path that cannot be created, another disk format…), which no read-only opening would fix.
    static func open(_ directory: String, capacity: Int) throws -> DegradedDiskOpening {
        let failure: CacheChainError
        do {
            return DegradedDiskOpening(storage: try DiskStorage(directory: directory, capacity: capacity), note: nil)
        } catch {
            failure = error
        }
        guard failure.code == .storageFailed, DiskStorage.isFullOrReadOnly(failure) else { throw failure }
        let readOnly = DiskStorage.Configuration(directory: directory, capacity: capacity, accessMode: .readOnly)
        if let storage = try? DiskStorage(configuration: readOnly) {
            printError("warning: cannot write the cache in \(directory) (\(failure.message)); using it read-only: nothing will be stored")
            return DegradedDiskOpening(storage: storage, note: "read-only: the directory cannot be written, nothing is stored")
        }
        printError("warning: cannot use the cache in \(directory) (\(failure.message)); fetching without it: nothing will be stored")
        return DegradedDiskOpening(storage: nil, note: "no cache: the directory cannot be used, nothing is stored")
    }
}
