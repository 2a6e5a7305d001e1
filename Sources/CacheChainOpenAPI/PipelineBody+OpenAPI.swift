#if OpenAPI
import CacheChainClient
public import CacheChainCore
public import OpenAPIRuntime

// CacheChain's `PipelineBody` and OpenAPIRuntime's `HTTPBody` (named by module here: CacheChainCore still has a
// deprecated `HTTPBody` alias); these conversions go between them.

extension OpenAPIRuntime.HTTPBody {
    /// A body that streams a CacheChain body: an in-memory body without a copy, a file-backed one in chunks of
    /// 256 KiB read off the cooperative pool, so memory stays bounded whatever its size.
    ///
    /// The length is known, and the body can be iterated more than once.
    /// - Parameter body: The CacheChain body (a response from the cache, say).
    public convenience init(_ body: CacheChainCore.PipelineBody) {
        let length = OpenAPIRuntime.HTTPBody.Length.known(Int64(body.count))
        if let bytes = body.inMemoryBytes {
            self.init(bytes[...], length: length)
        } else {
            self.init(body.chunks(), length: length, iterationBehavior: .multiple)
        }
    }
}

extension CacheChainCore.PipelineBody {
    /// Collects an OpenAPIRuntime body: in memory up to `limits.inMemoryBodyLimit`, then in a temporary file
    /// written off the cooperative pool (deleted when the body is released).
    /// - Parameters:
    ///   - body: The OpenAPIRuntime body; it is iterated once.
    ///   - limits: The memory limit, size limit and spool directory.
    /// - Throws: What iterating `body` throws; `CacheChainError` when the body exceeds
    ///   ``HTTPCacheMiddleware/BodyLimits/maximumBodySize`` or the spool file cannot be written.
    public init(collecting body: OpenAPIRuntime.HTTPBody, limits: HTTPCacheMiddleware.BodyLimits = HTTPCacheMiddleware.BodyLimits()) async throws {
        let spool = BodySpool(limits: .init(
            inMemoryBodyLimit: limits.inMemoryBodyLimit,
            maximumBodySize: limits.maximumBodySize,
            spoolDirectory: limits.spoolDirectory
        ))
        for try await chunk in body {
            try await spool.append(chunk)
        }
        self = try await spool.finish()
    }
}
#endif
