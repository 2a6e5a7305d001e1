import CacheChainCore
import Logging

extension HTTPCacheClient {
    /// Shuts the client down for a clean exit: drains its background revalidations, flushes its storage and
    /// shuts its transport down.
    ///
    /// In order:
    /// 1. The ``revalidationQueue`` stops accepting work and the revalidations already running finish (their
    ///    responses are stored). A stale response served from now on is not refreshed in the background.
    /// 2. The storage writes what it still holds in memory (`CacheStorage.flushPendingWrites()`: a `DiskStorage` writes its
    ///    batched LRU uses), so the next process finds every completed entry in its recorded order.
    /// 3. The transport shuts down (`HTTPTransport.shutdown()`: `CurlTransport` stops its libcurl thread);
    ///    later requests that reach the network fail with `cancelled`.
    ///
    /// Idempotent, and safe to call from several tasks at once: every call returns when the one shutdown is
    /// complete, with its outcome. Cancelling a waiting task abandons the revalidations still running (their
    /// transfers are cancelled and store nothing; every entry stored before stays intact) so the shutdown
    /// completes promptly, as a service group does when its graceful-shutdown period is over.
    ///
    /// ```swift
    /// let client = HTTPCacheClient(transport: CurlTransport(), configuration: .init(storage: try DiskStorage(directory: cacheDirectory)))
    /// let response = try await client.data(for: HTTPRequest(url: "https://example.com/"))
    /// try await client.shutdown()   // or run `HTTPCacheService(client:)` in a ServiceGroup
    /// ```
    /// - Throws: The storage's flush error, after the transport was shut down all the same.
    public func shutdown() async throws {
        let queue = revalidationQueue
        let storage = configuration.storage
        let transport = pipeline.transport
        let logger = configuration.logger
        try await withTaskCancellationHandler {
            try await shutdownGate.run {
                await queue.close()
                var failure: (any Error)?
                do {
                    try await storage.flushPendingWrites()
                } catch {
                    logger.error("flushing the cache storage at shutdown failed", metadata: ["error": "\(error)"])
                    failure = error
                }
                await transport.shutdown()
                if let failure { throw failure }
            }
        } onCancel: {
            Task { await queue.cancelAll() }
        }
    }
}
