#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CacheChainCore

/// The `errno` of a failed system call, kept as the `underlying` error of a `CacheChainError`.
struct SystemCallFailure: Error, CustomStringConvertible {
    /// The `errno` value.
    var code: Int32
    /// Whether it means the file system has no space left for this user (`ENOSPC`, `EDQUOT`).
    var isNoSpace: Bool { code == ENOSPC || code == EDQUOT }
    var description: String { "\(String(cString: strerror(code))) (errno \(code))" }
}

/// Thin, typed wrappers over the POSIX calls the disk backend makes.
enum POSIXFile {
    static func failure(_ doing: String) -> CacheChainError {
        let system = SystemCallFailure(code: errno)
        var hint = ""
        switch system.code {
        case ENOSPC, EDQUOT: hint = "; the disk is full"
        case EFBIG: hint = "; the file size limit was reached"
        case EROFS, EACCES, EPERM: hint = "; the cache directory is not writable"
        case ENOENT: hint = "; the cache directory is missing"
        case ENOTDIR, EISDIR: hint = "; a file or directory in the cache was replaced by something else"
        default: break
        }
        return CacheChainError(.storageFailed, "\(doing) failed: \(system)\(hint)", underlying: system)
    }

    /// Creates a directory and its missing parents, each readable by its owner only (mode 0700).
    static func makeDirectories(_ path: String) throws(CacheChainError) {
        var current = ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            current += "/" + component
            if mkdir(current, OwnerOnlyAccess.directoryMode) != 0, errno != EEXIST {
                throw failure("creating the cache directory \(current)")
            }
        }
        guard isDirectory(path) else {
            throw CacheChainError(.storageFailed, "\(path) exists but is not a directory")
        }
    }

    static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }

    /// Modification time in seconds since 1970, or `nil` when the path is missing.
    static func modificationTime(_ path: String) -> Int? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        return Int(status.st_mtim.tv_sec)
    }

    /// Seconds since 1970, as ``modificationTime(_:)`` gives them.
    static func now() -> Int {
        Int(nowMicroseconds() / 1_000_000)
    }

    static func nowMicroseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec / 1000)
    }

    static func remove(_ path: String) {
        unlink(path)
    }

    /// Syncs a directory so a rename in it survives power loss.
    static func syncDirectory(_ path: String) throws(CacheChainError) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("opening \(path) to sync it") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure("syncing \(path)") }
    }

    static func move(_ from: String, _ to: String) throws(CacheChainError) {
        guard rename(from, to) == 0 else { throw failure("renaming an entry file into \(to)") }
    }

    /// 8 random bytes as 16 hex digits: unique temporary and entry file names.
    static func randomHex() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }

    static func readWholeFile(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }

    /// Writes a small new file (mode 0600) and syncs it; the file must not exist.
    static func writeNew(_ bytes: [UInt8], to path: String) throws(CacheChainError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, OwnerOnlyAccess.fileMode)
        guard descriptor >= 0 else { throw failure("creating \(path)") }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, synced else {
            let error = failure("writing \(path)")
            unlink(path)
            throw error
        }
    }

    /// Writes a small file atomically (temporary file, then rename), readable by its owner only (mode 0600).
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws(CacheChainError) {
        let temporary = "\(path).\(randomHex()).tmp"
        try writeNew(bytes, to: temporary)
        do throws(CacheChainError) {
            try move(temporary, path)
        } catch {
            unlink(temporary)
            throw error
        }
    }
}
