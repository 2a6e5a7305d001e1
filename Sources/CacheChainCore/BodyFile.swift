#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A region of a file that holds a body: what lets a 1 GiB response travel through the cache without
/// being loaded into memory.
///
/// The file is opened when the value is created and stays open until the last reference goes away, so
/// readers keep seeing the same bytes even if the file is renamed, replaced or unlinked meanwhile (a disk
/// backend may evict or overwrite the entry while a caller is still reading its body). Reads use `pread`,
/// which does not move a shared file offset, so one `BodyFile` can be read from several tasks at once.
///
/// A file the cache created only for one response (a transport's spool file, made by ``BodyFileWriter``)
/// has no name at all: the value holds its only descriptor, and releasing the last reference frees it. A
/// named file opened with `removesFileOnRelease: true` is deleted when the last reference is released.
///
/// ```swift
/// let file = try BodyFile(path: "/var/cache/app/body.bin")
/// let body = PipelineBody(file: file)
/// ```
public final class BodyFile: Sendable, CustomStringConvertible {
    /// The path the file was opened at (it may have been renamed or unlinked since).
    public let path: String
    /// Where the body starts in the file.
    public let offset: Int
    /// The number of body bytes, starting at ``offset``.
    public let length: Int
    /// Whether the file is deleted when the last reference is released.
    public let removesFileOnRelease: Bool
    private let descriptor: Int32

    /// Opens a file region for reading.
    /// - Parameters:
    ///   - path: The file.
    ///   - offset: Where the body starts; 0 by default.
    ///   - length: The number of bytes; by default everything from `offset` to the end of the file.
    ///   - removesFileOnRelease: Whether to delete the file when the last reference is released.
    /// - Throws: ``CacheChainError`` with code ``CacheChainError/Code/bodyUnreadable`` when the file cannot be
    ///   opened or is shorter than `offset + length`.
    public init(path: String, offset: Int = 0, length: Int? = nil, removesFileOnRelease: Bool = false) throws(CacheChainError) {
        precondition(offset >= 0, "BodyFile offset must not be negative")
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CacheChainError(.bodyUnreadable, "cannot open body file \(path): \(SystemErrorText.current)")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw CacheChainError(.bodyUnreadable, "body file \(path) is not a regular file")
        }
        let available = Int(status.st_size) - offset
        let length = length ?? max(0, available)
        guard length >= 0, length <= available else {
            close(descriptor)
            throw CacheChainError(
                .bodyUnreadable,
                "body file \(path) holds \(max(0, available)) bytes after offset \(offset), expected \(length) (truncated?)"
            )
        }
        self.path = path
        self.offset = offset
        self.length = length
        self.removesFileOnRelease = removesFileOnRelease
        self.descriptor = descriptor
    }

    /// Takes over an open descriptor of a file that has no name (a ``BodyFileWriter``'s): the body reads it
    /// through that descriptor and closes it when released, which frees the file.
    /// - Parameters:
    ///   - descriptor: The open descriptor; owned by the new value from now on (closed even when this throws).
    ///   - length: The number of body bytes, from the start of the file.
    ///   - path: What ``path`` says (the file has no name of its own).
    /// - Throws: ``CacheChainError`` with code ``CacheChainError/Code/bodyUnreadable`` when the descriptor is
    ///   not a regular file at least `length` bytes long.
    package init(adopting descriptor: Int32, length: Int, path: String) throws(CacheChainError) {
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, Int(status.st_size) >= length else {
            close(descriptor)
            throw CacheChainError(.bodyUnreadable, "the spooled body file in \(path) is not the \(length) bytes written")
        }
        self.path = path
        self.offset = 0
        self.length = length
        self.removesFileOnRelease = false
        self.descriptor = descriptor
    }

    /// A part of another region, read through a duplicate of its descriptor: the same bytes even if the file
    /// is replaced meanwhile (a range served from a stored body).
    /// - Parameters:
    ///   - source: The region to take a part of.
    ///   - start: Where the part starts, relative to the source's ``offset``.
    ///   - length: The part's length; `start + length` must not pass the source's ``length``.
    /// - Throws: ``CacheChainError`` with code ``CacheChainError/Code/bodyUnreadable`` when the descriptor
    ///   cannot be duplicated (too many open files).
    package init(partOf source: BodyFile, start: Int, length: Int) throws(CacheChainError) {
        precondition(start >= 0 && length >= 0 && start + length <= source.length, "the part lies inside the source")
        let descriptor = fcntl(source.descriptor, F_DUPFD_CLOEXEC, 0)
        guard descriptor >= 0 else {
            throw CacheChainError(.bodyUnreadable, "cannot reopen body file \(source.path): \(SystemErrorText.current)")
        }
        self.path = source.path
        self.offset = source.offset + start
        self.length = length
        self.removesFileOnRelease = false
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
        if removesFileOnRelease { unlink(path) }
    }

    /// Reads up to `buffer.count` bytes starting at `position` within the body.
    /// - Parameters:
    ///   - position: The position relative to ``offset``.
    ///   - buffer: Where to put the bytes.
    /// - Returns: The number of bytes read; 0 at the end of the body.
    /// - Throws: ``CacheChainError`` with code ``CacheChainError/Code/bodyUnreadable`` on an I/O error or when
    ///   the file became shorter than ``length`` (never a silently short body).
    public func read(at position: Int, into buffer: UnsafeMutableRawBufferPointer) throws(CacheChainError) -> Int {
        let wanted = min(buffer.count, length - position)
        guard wanted > 0, let base = buffer.baseAddress else { return 0 }
        var done = 0
        while done < wanted {
            let result = pread(descriptor, base + done, wanted - done, off_t(offset + position + done))
            if result < 0 {
                if errno == EINTR { continue }
                throw CacheChainError(.bodyUnreadable, "reading body file \(path) failed: \(SystemErrorText.current)")
            }
            if result == 0 {
                throw CacheChainError(
                    .bodyUnreadable,
                    "body file \(path) ended after \(position + done) of \(length) bytes (truncated while in use?)"
                )
            }
            done += result
        }
        return done
    }

    /// Reads up to `count` bytes from `position` into a new array, as ``read(at:into:)`` does (empty at the end).
    func read(at position: Int, count: Int) throws(CacheChainError) -> [UInt8] {
        var failure: CacheChainError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(CacheChainError) {
                initialized = try read(at: position, into: UnsafeMutableRawBufferPointer(buffer))
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// A summary without the contents.
    public var description: String { "BodyFile(\(path), offset: \(offset), length: \(length))" }
}

/// The text of an `errno` value.
enum SystemErrorText {
    /// The text of the current `errno`.
    static var current: String { describing(errno) }

    static func describing(_ code: Int32) -> String { "\(String(cString: strerror(code))) (errno \(code))" }
}
