import CacheChainCore
import Foundation

/// Opening a cache with ``DiskStorage/AccessMode/readOnly``: what it checks instead of creating, and the
/// guard of every call that would write.
extension DiskStorage {
    /// Whether this instance may change the directory (``Configuration/accessMode`` is `readWrite`).
    var isWritable: Bool { configuration.accessMode == .readWrite }

    /// Throws unless this instance may write.
    /// - Parameter doing: What was asked, for the message.
    /// - Throws: `storage-failed` naming the directory, for a read-only instance.
    func requireWritable(_ doing: String) throws(CacheChainError) {
        guard !isWritable else { return }
        throw CacheChainError(
            .storageFailed,
            "cannot \(doing): the disk cache \(configuration.directory) was opened read-only; open it with accessMode readWrite to change it"
        )
    }

    /// The read-only counterpart of ``checkFormat(_:events:)``: the directory must hold a cache of this build's
    /// format; nothing is written, upgraded or repaired.
    /// - Parameter directory: The cache directory.
    /// - Throws: `storage-failed` when there is no cache, `invalid-configuration` for another format.
    static func checkFormatForReading(_ directory: String) throws(CacheChainError) {
        let path = "\(directory)/\(formatFileName)"
        if POSIXFile.isDirectory(path) { throw formatFileIsDirectoryError(path) }
        guard let bytes = POSIXFile.readWholeFile(path) else {
            throw CacheChainError(
                .storageFailed,
                "there is no disk cache in \(directory) (no readable \(formatFileName) file): check the directory"
            )
        }
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text == "\(formatVersion)" else {
            throw formatFileError(bytes, path: path, directory: directory, upgradable: olderFormats.contains { "\($0)" == text })
        }
    }
}
