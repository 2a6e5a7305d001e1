import Dispatch

/// Runs blocking file work (open, write, `pread`) on Dispatch's worker threads, so the calling task suspends
/// instead of blocking a thread of Swift's cooperative pool.
///
/// Each call costs two thread hops (tens of microseconds): use it for work that is worth it, such as writing a
/// 256 KiB batch of a spooled body or reading a chunk of a file-backed body, never per byte.
package enum OffPoolIO {
    /// Runs `work` on a Dispatch worker thread and returns its result.
    /// - Parameter work: The blocking work; it must not touch state another thread is using.
    /// - Returns: What `work` returns.
    /// - Throws: What `work` throws.
    package static func run<Result: Sendable>(
        _ work: @escaping @Sendable () throws(CacheChainError) -> Result
    ) async throws(CacheChainError) -> Result {
        let outcome: Swift.Result<Result, CacheChainError> = await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(returning: Swift.Result { () throws(CacheChainError) in try work() })
            }
        }
        return try outcome.get()
    }
}
