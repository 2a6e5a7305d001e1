#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a body to a new temporary file, piece by piece, and turns it into a file-backed ``PipelineBody``.
///
/// Transports use it to spool large responses (bounded memory whatever the body size); anything that
/// produces a large body incrementally can too.
///
/// The file never has a name another process could open or a crash could leave behind: it is created
/// unnamed (`O_TMPFILE`) where the file system allows it, otherwise (mode 0600) and unlinked at once, and the
/// body keeps the open descriptor, never reopening the file by path. Its space is freed when the last copy
/// of the body is released, when ``discard()`` is called, when the writer is released unfinished — or when
/// the process dies, however it dies. The directory is created (0700) when missing, and refused when
/// another user owns it or can write to it without the sticky bit.
///
/// ```swift
/// let writer = try BodyFileWriter(directory: NSTemporaryDirectory())
/// try writer.append(chunk)
/// let body = try writer.finish()
/// ```
///
/// Not thread-safe (not `Sendable`): one writer belongs to one producer.
public final class BodyFileWriter {
    /// Where the file is: its directory followed by `(unnamed)` — it has no name of its own.
    public let path: String
    /// The number of bytes written so far.
    public private(set) var count = 0
    private var descriptor: Int32

    /// Creates an unnamed temporary file (mode 0600) in a directory.
    /// - Parameter directory: Where to create it; created (0700) if missing.
    /// - Throws: ``CacheChainError`` with code ``CacheChainError/Code/storageFailed`` when the file cannot be
    ///   created (missing or read-only directory, no space) or the directory belongs to another user.
    public init(directory: String) throws(CacheChainError) {
        let directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        try SpoolDirectory.prepare(directory)
        var descriptor = open(directory, Self.unnamedFileFlags, 0o600)
        if descriptor < 0 {
            // No O_TMPFILE on this file system (EOPNOTSUPP, EISDIR, EINVAL): a named file, unlinked at once.
            var template = Array("\(directory)/\(SpoolDirectory.namePrefix)XXXXXX".utf8CString)
            descriptor = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
                guard let base = buffer.baseAddress else { return -1 }
                let created = mkstemp(base)
                if created >= 0 {
                    unlink(base)
                    _ = fcntl(created, F_SETFD, FD_CLOEXEC)
                }
                return created
            }
        }
        guard descriptor >= 0 else {
            throw CacheChainError(
                .storageFailed,
                "cannot create a temporary body file in \(directory): \(SystemErrorText.current); check the directory exists and is writable"
            )
        }
        self.descriptor = descriptor
        self.path = "\(directory)/(unnamed)"
    }

    /// `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`; Glibc's macro does not import into Swift) for a read-write file.
    private static let unnamedFileFlags: Int32 = 0o20000000 | O_DIRECTORY | O_RDWR | O_CLOEXEC

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Deletes the named spool files a killed process left in `directory` (`cachechain-spool-*`: they exist
    /// only where the file system has no unnamed files, and only between two system calls) and those of
    /// earlier releases (`cachechain-body-XXXXXX`, also in the earlier default `cachechain-spool` folder):
    /// this user's, older than a minute. Transports and backends that spool call it when they start.
    /// - Parameter directory: The spool directory.
    package static func sweepLeftovers(in directory: String) {
        SpoolDirectory.sweepLeftovers(in: directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory)
    }

    /// Appends bytes.
    /// - Parameter bytes: The next piece of the body.
    /// - Throws: ``CacheChainError`` with code ``CacheChainError/Code/storageFailed`` when the write fails (a
    ///   full disk names `ENOSPC`).
    public func append(_ bytes: UnsafeRawBufferPointer) throws(CacheChainError) {
        guard descriptor >= 0 else {
            throw CacheChainError(.storageFailed, "body file \(path) was already finished or discarded")
        }
        if let code = writeAll(bytes, to: descriptor) {
            throw CacheChainError(.storageFailed, "writing body file \(path) failed: \(SystemErrorText.describing(code))")
        }
        count += bytes.count
    }

    /// Appends bytes.
    /// - Parameter bytes: The next piece of the body.
    /// - Throws: ``CacheChainError`` with code ``CacheChainError/Code/storageFailed`` when the write fails.
    public func append(_ bytes: [UInt8]) throws(CacheChainError) {
        let result: Result<Void, CacheChainError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(CacheChainError) in try append(buffer) }
        }
        try result.get()
    }

    /// Hands the file over to a body that reads it through the same open descriptor; the file's space is
    /// freed when the body's last copy is released.
    /// - Returns: The file-backed body.
    /// - Throws: ``CacheChainError`` when the writer was already finished or discarded.
    public func finish() throws(CacheChainError) -> PipelineBody {
        guard descriptor >= 0 else {
            throw CacheChainError(.storageFailed, "body file \(path) was already finished or discarded")
        }
        let handedOver = descriptor
        descriptor = -1
        return PipelineBody(file: try BodyFile(adopting: handedOver, length: count, path: path))
    }

    /// Closes the file, which frees its space.
    public func discard() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }
}
