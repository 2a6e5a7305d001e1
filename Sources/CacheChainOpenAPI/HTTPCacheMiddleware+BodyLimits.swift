#if OpenAPI
public import Foundation

extension HTTPCacheMiddleware {
    /// How the middleware holds bodies while they pass through the cache.
    public struct BodyLimits: Sendable {
        /// Bodies up to this many bytes are held in memory; a larger one is written, as it streams in, to a
        /// temporary file in ``spoolDirectory`` (on Dispatch's threads, never on Swift's cooperative pool).
        public var inMemoryBodyLimit: Int
        /// The largest body accepted, in bytes; a larger one fails the operation with a clear error.
        public var maximumBodySize: Int
        /// Where larger bodies are written; each file is deleted when its body is released.
        public var spoolDirectory: String

        /// Creates limits.
        /// - Parameters:
        ///   - inMemoryBodyLimit: The largest body held in memory; 4 MiB.
        ///   - maximumBodySize: The largest body accepted; 8 GiB.
        ///   - spoolDirectory: Where larger bodies go; `cachechain-spool` in the temporary directory.
        public init(
            inMemoryBodyLimit: Int = 4 << 20,
            maximumBodySize: Int = 8 << 30,
            spoolDirectory: String = NSTemporaryDirectory() + "cachechain-spool"
        ) {
            self.inMemoryBodyLimit = inMemoryBodyLimit
            self.maximumBodySize = maximumBodySize
            self.spoolDirectory = spoolDirectory
        }
    }
}
#endif
