import CacheChainCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a body too large to inline into a new file of its own (mode 0600, created exclusively), chunk by
/// chunk: memory stays at one chunk whatever the body's size.
enum BatchBodyFile {
    /// Writes `body` to `directory/cachechain-body-<id>-<random>` and returns the file's path.
    /// - Throws: ``CacheChainError`` (`storage-failed`) naming the file and the system error; nothing is left
    ///   behind.
    static func write(_ body: PipelineBody, requestID: Int64, directory: String) throws(CacheChainError) -> String {
        let path = "\(directory)/cachechain-body-\(requestID)-\(UUID().uuidString.lowercased())"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure(path, errno) }
        var failed: CacheChainError?
        do {
            try body.forEachChunk { chunk in
                if let code = writeAll(chunk, to: descriptor) { throw failure(path, code) }
            }
        } catch let error as CacheChainError {
            failed = error
        } catch {
            failed = CacheChainError(.storageFailed, "writing the response body to \(path) failed", underlying: error)
        }
        if close(descriptor) != 0, failed == nil { failed = failure(path, errno) }
        if let failed {
            unlink(path)
            throw failed
        }
        return path
    }

    private static func failure(_ path: String, _ code: Int32) -> CacheChainError {
        CacheChainError(.storageFailed, "cannot write the response body to \(path): \(String(cString: strerror(code)))")
    }
}
