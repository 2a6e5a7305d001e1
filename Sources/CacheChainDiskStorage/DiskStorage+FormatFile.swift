import CacheChainCore

/// What a `cachechain-format` file that is not this build's says, for people: which file, what is wrong with it
/// (another version, damaged, a directory), and how to recover; its bytes printable whatever they hold.
extension DiskStorage {
    /// The error for a format file that holds something else than this build's format number.
    /// - Parameters:
    ///   - bytes: The file's contents.
    ///   - path: The file's path.
    ///   - directory: The cache directory.
    ///   - upgradable: Whether an older format this build upgrades (when opened read-write) is named.
    /// - Returns: `invalid-configuration`, naming the file, what it holds (escaped) and the remedy.
    static func formatFileError(_ bytes: [UInt8], path: String, directory: String, upgradable: Bool) -> CacheChainError {
        let trimmed = Array(bytes.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }.reversed()
            .drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }.reversed())
        let shown = PrintableText.escaped(trimmed)
        if !trimmed.isEmpty, trimmed.count <= 9, trimmed.allSatisfy({ (0x30...0x39).contains($0) }) {
            let remedy = upgradable
                ? "open it read-write once to upgrade it (its entries are dropped)"
                : "use the CacheChain version that wrote it, or another directory; if no newer CacheChain wrote it, the file "
                    + "is damaged: delete the cache directory (a cache can be refilled) or write \(formatVersion) into \(path)"
            return CacheChainError(
                .invalidConfiguration,
                "the cache directory \(directory) holds disk format \(shown) (\(path)); this build reads format \(formatVersion): \(remedy)"
            )
        }
        return CacheChainError(
            .invalidConfiguration,
            "\(path) is damaged: it holds '\(shown)' where the disk format number (\(formatVersion)) should be. Recover by "
                + "deleting the cache directory \(directory) (a cache can always be refilled), or, if the rest of the cache "
                + "is intact, by writing \(formatVersion) into \(path) (`echo \(formatVersion) > \(path)`)"
        )
    }

    /// The error for a directory where the format file should be.
    /// - Parameter path: The format file's path.
    /// - Returns: `invalid-configuration` naming the directory and the remedy.
    static func formatFileIsDirectoryError(_ path: String) -> CacheChainError {
        CacheChainError(
            .invalidConfiguration,
            "\(path) is a directory, where the cache's format file should be: remove it if it was made by mistake "
                + "(`rmdir \(path)` when empty), or use another cache directory"
        )
    }
}
