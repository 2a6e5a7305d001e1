#if AsyncHTTPClient
public import Foundation

extension CacheChainAHCTransport {
    /// The transport's own settings; the connection settings (TLS, HTTP version, pool, proxy, decompression)
    /// are AsyncHTTPClient's, in the `HTTPClient.Configuration` the transport is created with.
    public struct Configuration: Sendable {
        /// How long a whole request may take (connection, head and body), unless the request's context gives
        /// its own timeout (`HTTPCacheClient.Configuration.timeout` or `send(_:timeout:)`).
        public var requestTimeout: Duration
        /// The largest response body accepted, in bytes; a larger body fails with a clear error instead of
        /// filling the disk.
        public var maximumBodySize: Int
        /// Bodies up to this many bytes are kept in memory; a larger body is written, as it arrives, to a
        /// temporary file in ``spoolDirectory`` and returned file-backed, so memory stays bounded whatever the
        /// body's size (the file writes run on Dispatch's threads, never on Swift's cooperative pool).
        public var inMemoryBodyLimit: Int
        /// Where large bodies are spooled; each file is deleted when its body is released.
        public var spoolDirectory: String

        /// Creates a configuration.
        /// - Parameters:
        ///   - requestTimeout: Whole-request timeout; 60 s.
        ///   - maximumBodySize: Largest body in bytes; 8 GiB.
        ///   - inMemoryBodyLimit: Largest body kept in memory; 4 MiB.
        ///   - spoolDirectory: Where larger bodies are spooled; `cachechain-spool` in the temporary directory.
        public init(
            requestTimeout: Duration = .seconds(60),
            maximumBodySize: Int = 8 << 30,
            inMemoryBodyLimit: Int = 4 << 20,
            spoolDirectory: String = NSTemporaryDirectory() + "cachechain-spool"
        ) {
            self.requestTimeout = requestTimeout
            self.maximumBodySize = maximumBodySize
            self.inMemoryBodyLimit = inMemoryBodyLimit
            self.spoolDirectory = spoolDirectory
        }
    }
}
#else
#error("CacheChainAsyncHTTPClient needs the AsyncHTTPClient trait: depend with .package(url: …, from: '0.2.0', traits: ['AsyncHTTPClient'])")
#endif
