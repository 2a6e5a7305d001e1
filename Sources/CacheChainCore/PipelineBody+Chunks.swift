extension PipelineBody {
    /// The default chunk size for reading file-backed bodies: 256 KiB.
    public static let defaultChunkSize = 256 * 1024

    /// Calls `consume` with the body's bytes in order, at most `maximumSize` bytes at a time.
    ///
    /// An in-memory body is passed in one call; a file-backed body is read into one reused buffer, so memory
    /// stays bounded by `maximumSize` whatever the body's size.
    /// - Parameters:
    ///   - maximumSize: The largest chunk; 256 KiB by default.
    ///   - consume: Receives each chunk; the buffer is only valid during the call.
    /// - Throws: ``CacheChainError`` when the file cannot be read, or what `consume` throws.
    public func forEachChunk(
        maximumSize: Int = PipelineBody.defaultChunkSize,
        _ consume: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        precondition(maximumSize > 0, "chunk size must be positive")
        switch representation {
        case .bytes(let bytes):
            try bytes.withUnsafeBytes { buffer in
                var start = 0
                repeat {
                    let end = min(buffer.count, start + maximumSize)
                    try consume(UnsafeRawBufferPointer(rebasing: buffer[start..<end]))
                    start = end
                } while start < buffer.count
            }
        case .file(let file):
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: min(maximumSize, max(1, file.length)), alignment: 16)
            defer { buffer.deallocate() }
            var position = 0
            while position < file.length {
                let read = try file.read(at: position, into: buffer)
                try consume(UnsafeRawBufferPointer(rebasing: buffer[0..<read]))
                position += read
            }
        }
    }

    /// The body as an asynchronous sequence of chunks of at most `maximumSize` bytes: an in-memory body is
    /// sliced in place, each chunk of a file-backed body is read on a Dispatch worker thread, never on Swift's
    /// cooperative pool, so memory stays bounded by one chunk whatever the body's size.
    /// - Parameter maximumSize: The largest chunk; 256 KiB by default.
    /// - Returns: The sequence; it can be iterated more than once.
    public func chunks(maximumSize: Int = PipelineBody.defaultChunkSize) -> Chunks {
        precondition(maximumSize > 0, "chunk size must be positive")
        return Chunks(body: self, maximumSize: maximumSize)
    }

    /// An asynchronous sequence of a body's chunks, in order (adapters stream it into another library's body
    /// type: an AsyncHTTPClient request body, an OpenAPIRuntime response body).
    public struct Chunks: AsyncSequence, Sendable {
        /// A chunk of bytes.
        public typealias Element = ArraySlice<UInt8>
        /// Reading a file-backed body can fail.
        public typealias Failure = CacheChainError

        let body: PipelineBody
        let maximumSize: Int

        /// Starts reading from the first byte.
        /// - Returns: A fresh iterator.
        public func makeAsyncIterator() -> Iterator {
            Iterator(body: body, maximumSize: maximumSize)
        }

        /// Reads the next chunk on each call.
        public struct Iterator: AsyncIteratorProtocol {
            let body: PipelineBody
            let maximumSize: Int
            var position = 0
            var finished = false

            /// Returns the next chunk, or `nil` after the last one.
            /// - Parameter actor: The caller's isolation.
            /// - Returns: The chunk.
            /// - Throws: ``CacheChainError`` when the file cannot be read or ends early.
            public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws(CacheChainError) -> ArraySlice<UInt8>? {
                guard !finished, position < body.count else {
                    finished = true
                    return nil
                }
                let size = Swift.min(maximumSize, body.count - position)
                let start = position
                switch body.representation {
                case .bytes(let bytes):
                    position += size
                    return bytes[start..<start + size]
                case .file(let file):
                    do throws(CacheChainError) {
                        let chunk = try await OffPoolIO.run { () throws(CacheChainError) -> [UInt8] in
                            try file.read(at: start, count: size)
                        }
                        guard !chunk.isEmpty else {
                            throw CacheChainError(.bodyUnreadable, "body file \(file.path) ended at byte \(start) of \(body.count)")
                        }
                        position += chunk.count
                        return chunk[...]
                    } catch {
                        finished = true
                        throw error
                    }
                }
            }

            /// Returns the next chunk, or `nil` after the last one.
            /// - Returns: The chunk.
            /// - Throws: ``CacheChainError`` when the file cannot be read or ends early.
            public mutating func next() async throws(CacheChainError) -> ArraySlice<UInt8>? {
                try await next(isolation: #isolation)
            }
        }
    }
}
