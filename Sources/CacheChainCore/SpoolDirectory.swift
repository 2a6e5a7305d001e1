#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The rules for a directory that spool files (``BodyFileWriter``) are created in: a private one of ours, or
/// one like `/tmp` where other users can create files but cannot touch ours.
///
/// A directory that is missing is created with mode 0700. One owned by another user (other than root), or
/// writable by other users without the sticky bit, is refused: its owner could read a file in it while it
/// still has a name, make every spool fail, or replace a body before it is stored.
package enum SpoolDirectory {
    /// The prefix of the names spool files have when the file system cannot create unnamed files (distinct
    /// from the `cachechain-body-<id>-<uuid>` files `cachechain batch --body-dir` hands to its peer, which the
    /// sweep must never touch).
    package static let namePrefix = "cachechain-spool-"
    /// The prefix of the named spool files of earlier releases (`mkstemp`'s `cachechain-body-XXXXXX`, six
    /// characters after it), swept too so an upgrade cleans up what they left.
    static let legacyNamePrefix = "cachechain-body-"
    /// The spool directory earlier releases used by default, `$TMPDIR/cachechain-spool`.
    static let legacyDirectoryName = "cachechain-spool"

    /// Creates the directory when missing and checks that it is safe to spool into.
    /// - Parameter directory: The directory, without a trailing slash.
    /// - Throws: `storage-failed` naming the directory and what is wrong with it.
    package static func prepare(_ directory: String) throws(CacheChainError) {
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw CacheChainError(.storageFailed, "cannot create spool directory \(directory): \(SystemErrorText.current)")
        }
        var status = stat()
        guard stat(directory, &status) == 0 else {
            throw CacheChainError(.storageFailed, "cannot use spool directory \(directory): \(SystemErrorText.current)")
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw CacheChainError(.storageFailed, "the spool directory \(directory) is not a directory")
        }
        if status.st_uid != geteuid(), status.st_uid != 0 {
            throw CacheChainError(
                .storageFailed,
                "the spool directory \(directory) belongs to uid \(status.st_uid), not to this user: its owner could read "
                    + "or replace the bodies spooled there; use a directory of your own"
            )
        }
        if status.st_mode & 0o022 != 0, status.st_mode & S_ISVTX == 0 {
            throw CacheChainError(
                .storageFailed,
                "the spool directory \(directory) (mode \(String(status.st_mode & 0o7777, radix: 8))) is writable by other "
                    + "users without the sticky bit: they could replace the bodies spooled there; chmod 700 it or use another"
            )
        }
    }

    /// Deletes the spool files a killed process left with a name (only on file systems without unnamed
    /// files, and only between two calls), and those of earlier releases: this user's `cachechain-spool-*`
    /// and `cachechain-body-XXXXXX` files older than a minute, in `directory` and in the earlier default
    /// `cachechain-spool` folder inside it (removed when that leaves it empty).
    /// - Parameter directory: The spool directory.
    package static func sweepLeftovers(in directory: String) {
        sweepFiles(in: directory)
        let legacy = "\(directory)/\(legacyDirectoryName)"
        var status = stat()
        guard lstat(legacy, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_uid == geteuid() else { return }
        sweepFiles(in: legacy)
        rmdir(legacy)  // fails, harmlessly, while anything is left in it
    }

    /// Whether a file name is a spool file's: ours, or an earlier release's `mkstemp` name.
    static func isSpoolFileName(_ name: String) -> Bool {
        name.hasPrefix(namePrefix) || (name.hasPrefix(legacyNamePrefix) && name.utf8.count == legacyNamePrefix.utf8.count + 6)
    }

    private static func sweepFiles(in directory: String) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        for name in DirectoryListing.names(in: directory) where isSpoolFileName(name) {
            let path = "\(directory)/\(name)"
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid(),
                status.st_mtim.tv_sec < now.tv_sec - 60
            else { continue }
            unlink(path)
        }
    }
}
