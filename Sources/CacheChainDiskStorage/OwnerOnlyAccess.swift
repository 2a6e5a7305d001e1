#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CacheChainCore

/// The permissions of everything a ``DiskStorage`` keeps: directories 0700 and files 0600, so no other local
/// user can list, read or change URLs, headers or bodies (`Set-Cookie` included).
///
/// New directories and files are created with these modes; opening a cache checks the cache directory, its
/// format file, the `v<format>` folder with its `tmp/` and shard folders, and the index database with its
/// WAL and shared-memory files, and repairs any that allow more (a cache written by an older build, or
/// copied with another umask). Entry files inside the shard folders are repaired by the lazy sweep; they are
/// unreachable to other users as soon as their folder is 0700.
enum OwnerOnlyAccess {
    /// The mode of every directory: owner read, write, search.
    static let directoryMode: mode_t = 0o700
    /// The mode of every file: owner read, write.
    static let fileMode: mode_t = 0o600

    /// Gives `path` its owner-only mode when it allows more (or other than) that. Symbolic links and other
    /// kinds of files are left alone; a missing path is fine.
    /// - Parameter path: A directory or regular file of the cache.
    /// - Throws: `storage-failed` when the mode cannot be changed (another user owns it); on a read-only file
    ///   system nothing can be written there either, so it is left as it is.
    static func restrict(_ path: String) throws(CacheChainError) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        let wanted: mode_t
        switch status.st_mode & S_IFMT {
        case S_IFDIR: wanted = directoryMode
        case S_IFREG: wanted = fileMode
        default: return
        }
        guard status.st_mode & 0o7777 != wanted else { return }
        guard chmod(path, wanted) != 0 else { return }
        let code = errno
        if code == EROFS { return }
        throw CacheChainError(
            .storageFailed,
            "\(path) has mode \(String(status.st_mode & 0o7777, radix: 8)) and cannot be made private to its owner "
                + "(\(String(cString: strerror(code))), errno \(code); owner uid \(status.st_uid)): "
                + "chown it to this user or use another cache directory"
        )
    }

    /// Creates an empty file with the owner-only mode unless it exists (SQLite then creates the database's
    /// WAL and shared-memory files with the same mode).
    static func createFile(_ path: String) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, fileMode)
        if descriptor >= 0 { close(descriptor) }
    }
}
