import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real, size-limited file system for tests of full and read-only disks: a `tmpfs` of a few MiB mounted
/// with `mount(8)` on a new directory, which can be remounted read-only.
///
/// Mounting needs root (`CAP_SYS_ADMIN`), which CI containers usually have. Anywhere else ``mount(bytes:)``
/// returns `nil` after printing why, and the test skips its checks: nothing is mocked.
///
/// ```swift
/// guard let scratch = ScratchFileSystem.mount(bytes: 4 << 20) else { return }  // not root: skipped, reason printed
/// defer { scratch.unmount() }
/// let disk = try DiskStorage(directory: scratch.path + "/cache", capacity: 1 << 30)
/// ```
public final class ScratchFileSystem: Sendable {
    /// Where the file system is mounted.
    public let path: String

    private init(path: String) {
        self.path = path
    }

    /// Mounts a new `tmpfs` of `bytes` bytes on a new directory under the temporary directory.
    /// - Parameter bytes: Its size.
    /// - Returns: The mounted file system; `nil`, with the reason printed, when this process cannot mount
    ///   (not root, no `mount`, or a container that forbids it).
    public static func mount(bytes: Int) -> ScratchFileSystem? {
        guard geteuid() == 0 else {
            print("ScratchFileSystem: skipped, mounting a size-limited tmpfs needs root (euid \(geteuid()))")
            return nil
        }
        let path = NSTemporaryDirectory() + "cachechain-scratch-fs-\(UUID().uuidString)"
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            print("ScratchFileSystem: skipped, cannot create \(path): \(error)")
            return nil
        }
        if let failure = run(["-t", "tmpfs", "-o", "size=\(bytes),mode=0700", "tmpfs", path]) {
            print("ScratchFileSystem: skipped, mount failed: \(failure)")
            rmdir(path)
            return nil
        }
        return ScratchFileSystem(path: path)
    }

    /// Remounts the file system read-only (`mount -o remount,ro`): every write then fails with `EROFS`.
    /// - Throws: An error with mount's message when it fails.
    public func remountReadOnly() throws {
        if let failure = Self.run(["-o", "remount,ro", path]) { throw ScratchFileSystemError(description: failure) }
    }

    /// Unmounts it and removes its directory.
    public func unmount() {
        _ = Self.run(["-l", path], tool: "/bin/umount")
        rmdir(path)
    }

    /// Fills the free space with one file (`filler` at the root of the file system) until a write fails.
    /// - Returns: The filler's path; delete it to give the space back.
    @discardableResult
    public func fill() -> String {
        let filler = path + "/filler"
        let descriptor = open(filler, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard descriptor >= 0 else { return filler }
        defer { close(descriptor) }
        let block = [UInt8](repeating: 0x5A, count: 4096)
        while block.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        return filler
    }

    /// Runs mount (or `tool`) with arguments; the error text when it fails, `nil` on success.
    private static func run(_ arguments: [String], tool: String = "/bin/mount") -> String? {
        let process: ChildProcess
        do {
            process = try ChildProcess(tool, arguments, standardError: .pipe)
        } catch {
            return "\(tool) could not run: \(error)"
        }
        let text = process.standardError.map { String(decoding: $0.readDataToEndOfFile(), as: UTF8.self) } ?? ""
        let status = process.waitUntilExit()
        return status == 0 ? nil : "\(tool) \(arguments.joined(separator: " ")) exited \(status): \(text)"
    }
}

/// Why ``ScratchFileSystem`` could not change its mount.
public struct ScratchFileSystemError: Error, CustomStringConvertible {
    /// mount's message.
    public var description: String
}
