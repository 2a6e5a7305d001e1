import CacheChainCore

/// The one place where the plugin reads or makes body bytes (envelopes, plaintext bodies): when
/// ``PipelineBody`` gains representations, only this file changes.
enum BodyBytes {
    private struct Stop: Error {}

    /// Calls `consume` with the body's bytes in order until it returns `false` or the body ends: an
    /// in-memory body in one call (no copy), a file-backed body in chunks of at most `chunkSize` bytes
    /// (bounded memory).
    /// - Throws: ``CacheChainError`` when the body cannot be read, or what `consume` throws.
    static func forEachChunk(
        of body: PipelineBody,
        chunkSize: Int = PipelineBody.defaultChunkSize,
        _ consume: (UnsafeRawBufferPointer) throws(CacheChainError) -> Bool
    ) throws(CacheChainError) {
        let size = body.inMemoryBytes == nil ? chunkSize : max(1, body.count)
        do {
            try body.forEachChunk(maximumSize: size) { chunk in
                guard try consume(chunk) else { throw Stop() }
            }
        } catch is Stop {
            return
        } catch let error as CacheChainError {
            throw error
        } catch {
            throw CacheChainError(.bodyUnreadable, "a body could not be read", underlying: error)
        }
    }

    /// The body's byte count.
    static func count(of body: PipelineBody) -> Int { body.count }

    /// An in-memory body holding `bytes`.
    static func body(_ bytes: [UInt8]) -> PipelineBody { PipelineBody(bytes) }
}
