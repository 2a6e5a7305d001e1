extension HTTPBody {
    /// The body as chunks of at most `maximumSize` bytes, each chunk of a file-backed body read on a Dispatch
    /// worker thread (``OffPoolIO``) rather than on the cooperative pool; an in-memory body is sliced in place.
    ///
    /// For adapters that stream a body into another library's body type (an AsyncHTTPClient request body, an
    /// OpenAPIRuntime response body): memory stays bounded by one chunk whatever the body's size.
    /// - Parameter maximumSize: The largest chunk; 256 KiB by default.
    /// - Returns: The chunks, in order; the sequence can be iterated more than once.
    package func offPoolChunks(maximumSize: Int = HTTPBody.defaultChunkSize) -> OffPoolChunks {
        precondition(maximumSize > 0, "chunk size must be positive")
        return OffPoolChunks(body: self, maximumSize: maximumSize)
    }

    /// The chunks of a body, read off the cooperative pool when the body is file-backed.
    package struct OffPoolChunks: AsyncSequence, Sendable {
        package typealias Element = ArraySlice<UInt8>
        package typealias Failure = CacheChainError

        let body: HTTPBody
        let maximumSize: Int

        package func makeAsyncIterator() -> Iterator {
            Iterator(body: body, maximumSize: maximumSize)
        }

        /// Reads the next chunk on each call.
        package struct Iterator: AsyncIteratorProtocol {
            let body: HTTPBody
            let maximumSize: Int
            var position = 0

            package mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws(CacheChainError) -> ArraySlice<UInt8>? {
                try await nextChunk()
            }

            package mutating func next() async throws(CacheChainError) -> ArraySlice<UInt8>? {
                try await nextChunk()
            }

            private mutating func nextChunk() async throws(CacheChainError) -> ArraySlice<UInt8>? {
                guard position < body.count else { return nil }
                let size = Swift.min(maximumSize, body.count - position)
                let start = position
                switch body.representation {
                case .bytes(let bytes):
                    position += size
                    return bytes[start..<start + size]
                case .file(let file):
                    let chunk = try await OffPoolIO.run { () throws(CacheChainError) -> [UInt8] in
                        try file.read(at: start, count: size)
                    }
                    guard !chunk.isEmpty else {
                        throw CacheChainError(.bodyUnreadable, "body file \(file.path) ended at byte \(start) of \(body.count)")
                    }
                    position += chunk.count
                    return chunk[...]
                }
            }
        }
    }
}
