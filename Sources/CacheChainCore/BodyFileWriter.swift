#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a body to a new temporary file, piece by piece, and turns it into a file-backed ``HTTPBody``.
///
/// Transports use it to spool large responses (bounded memory whatever the body size); anything that
/// produces a large body incrementally can too. The file gets a unique name in the chosen directory and
/// is deleted when the resulting body is released, or at once by ``discard()`` or when the writer is
/// released unfinished.
///
/// ```swift
/// let writer = try BodyFileWriter(directory: NSTemporaryDirectory())
/// try writer.append(chunk)
/// let body = try writer.finish()
/// ```
///
/// Not thread-safe (not `Sendable`): one writer belongs to one producer.
public final class BodyFileWriter {
    /// The temporary file's path.
    public let path: String
    /// The number of bytes written so far.
    public private(set) var count = 0
    private var descriptor: Int32

    /// Creates a unique temporary file (mode 0600) in a directory.
    /// - Parameter directory: Where to create it; created if missing.
    /// - Throws: ``CacheChainError`` with code ``CacheChainError/Code/storageFailed`` when the file cannot be
    ///   created (missing or read-only directory, no space).
    public init(directory: String) throws(CacheChainError) {
        let directory = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw CacheChainError(.storageFailed, "cannot create spool directory \(directory): \(SystemErrorText.current)")
        }
        var template = Array("\(directory)/cachechain-body-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return mkstemp(base)
        }
        guard descriptor >= 0 else {
            throw CacheChainError(
                .storageFailed,
                "cannot create a temporary body file in \(directory): \(SystemErrorText.current); check the directory exists and is writable"
            )
        }
        self.descriptor = descriptor
        self.path = template.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { String(cString: $0) } ?? directory
        }
    }

    deinit {
        if descriptor >= 0 {
            close(descriptor)
            unlink(path)
        }
    }

    /// Appends bytes.
    /// - Parameter bytes: The next piece of the body.
    /// - Throws: ``CacheChainError`` with code ``CacheChainError/Code/storageFailed`` when the write fails (a
    ///   full disk names `ENOSPC`).
    public func append(_ bytes: UnsafeRawBufferPointer) throws(CacheChainError) {
        guard descriptor >= 0 else {
            throw CacheChainError(.storageFailed, "body file \(path) was already finished or discarded")
        }
        guard let base = bytes.baseAddress else { return }
        var done = 0
        while done < bytes.count {
            let result = write(descriptor, base + done, bytes.count - done)
            if result < 0 {
                if errno == EINTR { continue }
                throw CacheChainError(.storageFailed, "writing body file \(path) failed: \(SystemErrorText.current)")
            }
            done += result
        }
        count += done
    }

    /// Appends bytes.
    /// - Parameter bytes: The next piece of the body.
    /// - Throws: ``CacheChainError`` with code ``CacheChainError/Code/storageFailed`` when the write fails.
    public func append(_ bytes: [UInt8]) throws(CacheChainError) {
        let result: Result<Void, CacheChainError> = bytes.withUnsafeBytes { buffer in
            do throws(CacheChainError) {
                try append(buffer)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// Closes the file and returns a body that reads it and deletes it when released.
    /// - Returns: The file-backed body.
    /// - Throws: ``CacheChainError`` when the writer was already finished or the file cannot be reopened.
    public func finish() throws(CacheChainError) -> HTTPBody {
        guard descriptor >= 0 else {
            throw CacheChainError(.storageFailed, "body file \(path) was already finished or discarded")
        }
        close(descriptor)
        descriptor = -1
        do throws(CacheChainError) {
            return HTTPBody(file: try BodyFile(path: path, length: count, removesFileOnRelease: true))
        } catch {
            unlink(path)
            throw error
        }
    }

    /// Closes and deletes the file.
    public func discard() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        unlink(path)
        descriptor = -1
    }
}
