public import CacheChainCore
public import CacheChainPolicy
public import HTTPTypes
public import Logging

extension HTTPCacheClient {
    /// Sends a request through the cache and hands `handle` the response while its body arrives: a miss is read
    /// as the origin sends it, and stored once it is complete and intact.
    ///
    /// ```swift
    /// try await client.stream(try HTTPRequest(url: "https://example.com/big.iso")) { response in
    ///     for try await chunk in response.body {
    ///         try output.write(contentsOf: chunk)   // the first bytes before the origin has sent the rest
    ///     }
    /// }
    /// ```
    /// - A miss (or a changed response to a revalidation) is streamed when the transport streams
    ///   (`CurlTransport` does; the default of `HTTPTransport.send(_:context:streamingTo:)` buffers): the head
    ///   comes as soon as the origin's does, then the body chunk by chunk through a buffer of at most
    ///   `bufferLimit` bytes. A slow reader slows the transfer (libcurl pauses it) instead of growing memory.
    ///   The same bytes build the response the cache stores (spooled to a file past the transport's in-memory
    ///   limit), committed by the usual rules once the body is complete, before the body sequence ends. A body
    ///   too large for the store stops being kept as soon as its `Content-Length` or its running count says so
    ///   (what was spooled is deleted), while the caller's stream goes on to the end; nothing is stored (a
    ///   `notStored` event with reason `too-large`), and a request coalesced with it fetches its own body.
    /// - A streamed head has the changes interceptors make on the way back only where they register them with
    ///   `ResponseBodyStream.amendStreamedHead(_:)` (`CacheStatusInterceptor` and `StorageDecisionInterceptor` for a policy override
    ///   do; the `Cache-Status` of a streamed miss has no `stored`, decided once the body is complete). Its
    ///   trace holds the lookup's decisions until the body has ended, then the whole trace.
    /// - Anything else — a hit (from a disk entry, read from its file in chunks), a `304`, a stale response, an
    ///   error status, a response shared with a coalesced request — comes when the pipeline has it, whole.
    /// - When `handle` returns (or throws) before the body ended, the transfer is cancelled and nothing is
    ///   stored; cancelling the calling task does the same.
    /// - Parameters:
    ///   - request: The request; it needs a scheme and an authority.
    ///   - body: An optional request body.
    ///   - bufferLimit: The most bytes waiting for `handle` before the transfer waits; 1 MiB by default.
    ///   - logger: Where this request's log lines go; the configuration's `Configuration.logger` when `nil`.
    ///   - isolation: The actor `handle` runs on; the caller's own by default (`#isolation`).
    ///   - handle: Reads the response; its body can be read once, only during this call.
    /// - Returns: What `handle` returns.
    /// - Throws: `CacheChainError` from the request (also while the body is read, e.g. when the connection
    ///   breaks), or what `handle` throws.
    public func stream<Result>(
        _ request: HTTPRequest,
        body: PipelineBody? = nil,
        bufferLimit: Int = ResponseBodyStream.defaultBufferLimit,
        logger: Logger? = nil,
        isolation: isolated (any Actor)? = #isolation,
        _ handle: (StreamedResponse) async throws -> Result
    ) async throws -> Result {
        let stream = ResponseBodyStream(bufferLimit: bufferLimit)
        var values = ContextValues()
        values[ResponseBodyStreamKey.self] = stream
        let pipelineRequest = PipelineRequest(head: request, body: body)
        return try await withThrowingTaskGroup(of: Void.self, returning: Result.self) { group in
            group.addTask { [self, values] in
                do {
                    stream.finish(.success(try await send(pipelineRequest, values: values, logger: logger)))
                } catch {
                    stream.finish(.failure(error))
                }
            }
            do {
                let response = try await StreamedResponse(starting: stream.start(), stream: stream)
                let result = try await handle(response)
                await Self.stop(stream, group: &group)
                return result
            } catch {
                await Self.stop(stream, group: &group)
                throw error
            }
        }
    }

    /// Abandons a stream the caller no longer reads and waits for the request to end (cancelled, when it was
    /// still running).
    private static func stop(_ stream: ResponseBodyStream, group: inout ThrowingTaskGroup<Void, any Error>) async {
        stream.abandon()
        group.cancelAll()
        try? await group.waitForAll()
    }

    /// A response whose body is read while it arrives, handed to the closure of
    /// ``HTTPCacheClient/stream(_:body:bufferLimit:logger:isolation:_:)``.
    public struct StreamedResponse: Sendable {
        /// The response head as the application sees it.
        public let head: HTTPResponse
        /// Where the response came from: `miss` for a streamed response from the origin.
        public let cacheStatus: CacheStatus
        /// The decision trace. For a response the pipeline finished before the body was read, complete; for a
        /// streamed miss, the cache's decisions so far (its lookup: why it went to the origin) until the body
        /// sequence has ended, then the whole trace, the storage decision included (`stored`, `too-large`…).
        public var trace: [CacheReason] {
            if case .stream(let stream) = body.source { return stream.trace }
            return completeTrace
        }
        private let completeTrace: [CacheReason]
        /// The body, chunk by chunk; it can be iterated once.
        public let body: Body

        init(starting start: ResponseBodyStream.Start, stream: ResponseBodyStream) {
            switch start {
            case .streaming(let head):
                self.head = head
                cacheStatus = .miss
                completeTrace = []
                body = Body(source: .stream(stream))
            case .complete(let response):
                head = response.head
                cacheStatus = response.cacheStatus
                completeTrace = response.trace
                body = Body(source: .complete(response.body.chunks()))
            }
        }

        /// The chunks of a streamed response's body, in order.
        public struct Body: AsyncSequence, Sendable {
            /// A chunk of bytes.
            public typealias Element = [UInt8]

            enum Source: Sendable {
                case stream(ResponseBodyStream)
                case complete(PipelineBody.Chunks)
            }

            let source: Source

            /// The most bytes that waited in the buffer at once (0 for a body that was not streamed).
            package var highWaterMark: Int {
                if case .stream(let stream) = source { return stream.highWaterMark }
                return 0
            }

            /// Starts reading.
            /// - Returns: The iterator.
            public func makeAsyncIterator() -> Iterator {
                switch source {
                case .stream(let stream): Iterator(stream: stream, chunks: nil)
                case .complete(let chunks): Iterator(stream: nil, chunks: chunks.makeAsyncIterator())
                }
            }

            /// Reads the next chunk on each call.
            public struct Iterator: AsyncIteratorProtocol {
                let stream: ResponseBodyStream?
                var chunks: PipelineBody.Chunks.Iterator?

                /// Returns the next chunk, waiting for it to arrive; `nil` after the last one.
                /// - Returns: The chunk.
                /// - Throws: `CacheChainError` when the transfer failed or a file could not be read;
                ///   `CancellationError` when the calling task was cancelled.
                public mutating func next() async throws -> [UInt8]? {
                    if let stream { return try await stream.read() }
                    return try await chunks?.next().map(Array.init)
                }
            }
        }
    }
}
