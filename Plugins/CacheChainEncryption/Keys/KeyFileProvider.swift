public import CacheChainCore
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keys kept in a file that only its owner can read (mode 0600), created with a fresh random key the
/// first time.
///
/// The file holds one key per line, the current key first, each as `ID KEY` or as `KEY` alone (its ID is
/// then derived from it), the key being 64 hex digits or the base64 of 32 bytes; `#` starts a comment.
/// `openssl rand -base64 32 > cache.key && chmod 600 cache.key` makes a valid file.
///
/// - A missing file is created with mode 0600 and one random key (the directory must exist), unless
///   `createIfMissing` is `false`: then it is an error, so that a mistyped path never silently starts a
///   new key (and a cache nobody can read later).
/// - An existing file that group or others can access (e.g. mode 0644) is refused with a
///   `CacheChainError.Code.invalidConfiguration` error that names the file and the fix (`chmod 600`); so is a
///   file owned by another user than the process's effective user, even when that is root (as ssh does).
/// - ``rotate()`` adds a new random current key; ``destroyKey(withID:)`` removes one (crypto-shredding).
///   Both rewrite the file atomically (write a temporary file with mode 0600, then rename).
public final class KeyFileProvider: KeyProvider {
    /// The key file's path.
    public let path: String
    private let ring: LockedValue<KeyRing>

    /// Opens a key file, creating it with a random key when it does not exist (unless told not to).
    /// - Parameters:
    ///   - path: The file's path.
    ///   - createIfMissing: Whether a missing file is created with a new random key (the default) or is an
    ///     error.
    /// - Throws: `CacheChainError.Code.invalidConfiguration` when the file is accessible by group or
    ///   others, is owned by another user, is not a regular file, cannot be read or created, holds no valid key, or is missing and
    ///   `createIfMissing` is `false`.
    public init(path: String, createIfMissing: Bool = true) throws(CacheChainError) {
        self.path = path
        var info = stat()
        if stat(path, &info) != 0 {
            guard errno == ENOENT else { throw Self.failure(path, "cannot be examined: \(String(cString: strerror(errno)))") }
            guard createIfMissing else {
                throw Self.failure(path, "does not exist; give the path of the existing key file, or create a new key on purpose")
            }
            let key = try EncryptionKey.random()
            try Self.write(KeyRing(current: key, previous: []), to: path, exclusive: true)
            ring = LockedValue(KeyRing(current: key, previous: []))
            return
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw Self.failure(path, "is not a regular file") }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw Self.failure(
                path,
                "is accessible by group or others (mode \(String(mode, radix: 8, uppercase: false).leftPadded(to: 4))); "
                    + "a key file must be readable by its owner only: run `chmod 600 \(path)`"
            )
        }
        // As ssh refuses another user's private key, even for root: whoever owns the file can replace the keys.
        guard info.st_uid == geteuid() else {
            throw Self.failure(
                path,
                "is owned by user \(info.st_uid), not by the user running the cache (\(geteuid())); a key file must belong "
                    + "to that user, even for root (another owner can read or replace the keys): if the file is yours, run "
                    + "`chown \(geteuid()) \(path)`"
            )
        }
        ring = LockedValue(try Self.read(path))
    }

    /// The current key (the file's first line).
    public var currentKey: EncryptionKey? { ring.withLock { $0.current } }

    /// Every key in the file, current first.
    public var availableKeys: [EncryptionKey] { ring.withLock { $0.all } }

    /// Adds a fresh random key as the current one and saves the file; older keys stay readable.
    /// - Returns: The new key.
    /// - Throws: `CacheChainError` when the file cannot be written (the keys in memory are then unchanged).
    @discardableResult
    public func rotate() throws(CacheChainError) -> EncryptionKey {
        let key = try EncryptionKey.random()
        try ring.withLock { (ring) throws(CacheChainError) in
            var next = ring
            next.rotate(to: key)
            try Self.write(next, to: path, exclusive: false)
            ring = next
        }
        return key
    }

    /// Removes a key from the file and from memory: entries sealed with it become unreadable for good
    /// (crypto-shredding). File systems and backups may keep old copies of the file's blocks: keep key files
    /// on encrypted or ephemeral storage when that matters.
    /// - Parameter id: The key's ID.
    /// - Returns: Whether a key had that ID.
    /// - Throws: `CacheChainError` when the file cannot be written.
    @discardableResult
    public func destroyKey(withID id: String) throws(CacheChainError) -> Bool {
        try ring.withLock { (ring) throws(CacheChainError) -> Bool in
            var next = ring
            guard next.remove(id: id) else { return false }
            try Self.write(next, to: path, exclusive: false)
            ring = next
            return true
        }
    }

    // MARK: - File format

    private static func read(_ path: String) throws(CacheChainError) -> KeyRing {
        guard let data = FileManager.default.contents(atPath: path) else { throw failure(path, "cannot be read") }
        var text = String(decoding: data, as: UTF8.self)
        defer { text = "" }
        var keys: [EncryptionKey] = []
        for (number, line) in text.split(whereSeparator: \.isNewline).enumerated() {
            let content = line.prefix { $0 != "#" }.trimmingCharacters(in: .whitespaces)
            if content.isEmpty { continue }
            let parts = content.split(whereSeparator: \.isWhitespace)
            do throws(CacheChainError) {
                switch parts.count {
                case 1: keys.append(try EncryptionKey(encoded: parts[0]))
                case 2: keys.append(try EncryptionKey(encoded: parts[1], id: String(parts[0])))
                default: throw CacheChainError(.invalidConfiguration, "expected `ID KEY` or `KEY`")
                }
            } catch {
                throw failure(path, "line \(number + 1) is not a valid key: \(error.message)")
            }
        }
        guard let current = keys.first else { throw failure(path, "holds no key") }
        return KeyRing(current: current, previous: Array(keys.dropFirst()))
    }

    private static func write(_ ring: KeyRing, to path: String, exclusive: Bool) throws(CacheChainError) {
        var text = "# CacheChain encryption keys: ID KEY (base64), current key first. Keep this file secret (mode 0600).\n"
        for key in ring.all { text += "\(key.id) \(KeyText.base64(key))\n" }
        var bytes = Array(text.utf8)
        text = ""
        defer { wipe(&bytes) }
        let target = exclusive ? path : path + ".tmp-\(getpid())"
        let descriptor = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure(path, "cannot be created: \(String(cString: strerror(errno)))") }
        var ok = fchmod(descriptor, 0o600) == 0
        var written = 0
        while ok, written < bytes.count {
            let result = bytes.withUnsafeBytes { systemWrite(descriptor, $0.baseAddress?.advanced(by: written), $0.count - written) }
            if result > 0 { written += result } else if !(result < 0 && errno == EINTR) { ok = false }
        }
        ok = ok && fsync(descriptor) == 0
        close(descriptor)
        guard ok, exclusive || rename(target, path) == 0 else {
            unlink(target)
            throw failure(path, "cannot be written: \(String(cString: strerror(errno)))")
        }
    }

    private static func failure(_ path: String, _ problem: String) -> CacheChainError {
        CacheChainError(.invalidConfiguration, "encryption key file \(path) \(problem)")
    }
}

/// `write(2)`, named apart from the provider's own `write(_:to:exclusive:)`.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(descriptor, bytes, count)
    #else
    Darwin.write(descriptor, bytes, count)
    #endif
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
