/// Receives a body as it streams in: kept in memory up to a limit, then written to a temporary file off the
/// cooperative pool, so memory stays bounded whatever the body's size.
///
/// Adapters that receive bodies as asynchronous sequences (AsyncHTTPClient's `ByteBuffer`s, OpenAPIRuntime's
/// `PipelineBody`) turn them into a CacheChain ``PipelineBody`` with it, as `CurlTransport` does on its own thread:
///
/// ```swift
/// let spool = BodySpool(limits: .init(inMemoryBodyLimit: 4 << 20, maximumBodySize: 8 << 30, spoolDirectory: cacheDirectory))
/// for try await chunk in response.body.chunks() {   // e.g. AsyncHTTPClient's ByteBuffers, each's readableBytesView
///     try await spool.append(chunk)
/// }
/// let body = try await spool.finish()
/// ```
///
/// Once the body outgrows ``Limits/inMemoryBodyLimit`` the bytes so far go to a ``BodyFileWriter`` and later
/// ones follow in batches of ``batchSize`` bytes, each written on a Dispatch worker thread (``OffPoolIO``). The
/// file is deleted when the finished body is released, or at once by ``discard()`` or when an unfinished spool
/// is released (a failed or cancelled transfer leaves nothing behind).
///
/// Not `Sendable`: one spool belongs to the one task that reads the body.
package final class BodySpool {
    /// How much a spool keeps in memory and how much it accepts.
    package struct Limits: Sendable {
        /// Bodies up to this many bytes stay in memory; a larger one is written to a file.
        package var inMemoryBodyLimit: Int
        /// The largest body accepted; a larger one fails ``BodySpool/append(_:)``.
        package var maximumBodySize: Int
        /// Where the temporary file is created (and the directory itself, when missing).
        package var spoolDirectory: String

        /// Creates limits.
        /// - Parameters:
        ///   - inMemoryBodyLimit: The largest body kept in memory.
        ///   - maximumBodySize: The largest body accepted.
        ///   - spoolDirectory: Where larger bodies are written.
        package init(inMemoryBodyLimit: Int, maximumBodySize: Int, spoolDirectory: String) {
            self.inMemoryBodyLimit = inMemoryBodyLimit
            self.maximumBodySize = maximumBodySize
            self.spoolDirectory = spoolDirectory
        }
    }

    /// The bytes gathered before a write to the file: 256 KiB.
    package static let batchSize = 256 * 1024

    /// The file writer, handed to one Dispatch worker at a time.
    private final class Writer: @unchecked Sendable {  // invariant: used by one call at a time; each off-pool call is awaited before the next starts
        let file: BodyFileWriter
        init(file: BodyFileWriter) { self.file = file }
    }

    private let limits: Limits
    private var pending: [UInt8] = []
    private var writer: Writer?
    private var received = 0

    /// Creates an empty spool.
    /// - Parameter limits: The memory limit, size limit and spool directory.
    package init(limits: Limits) {
        self.limits = limits
    }

    deinit {
        writer?.file.discard()
    }

    /// Appends the next bytes of the body.
    /// - Parameter bytes: The bytes, in order.
    /// - Throws: ``CacheChainError`` `transport-failed` when the body exceeds ``Limits/maximumBodySize``, or
    ///   `storage-failed` when the spool file cannot be created or written (the message names the directory).
    package func append(_ bytes: some Collection<UInt8>) async throws(CacheChainError) {
        received += bytes.count
        guard received <= limits.maximumBodySize else {
            discard()
            throw CacheChainError(
                .transportFailed,
                "the response body exceeds the maximum body size of \(limits.maximumBodySize) bytes; raise maximumBodySize to accept it"
            )
        }
        // A contiguous collection (an array slice, a ByteBuffer's view) is copied in one go, not byte by byte.
        if bytes.withContiguousStorageIfAvailable({ pending.append(contentsOf: $0) }) == nil {
            pending.append(contentsOf: bytes)
        }
        if writer == nil, pending.count > limits.inMemoryBodyLimit {
            let directory = limits.spoolDirectory
            writer = try await OffPoolIO.run { () throws(CacheChainError) in Writer(file: try BodyFileWriter(directory: directory)) }
        }
        if writer != nil, pending.count >= Self.batchSize {
            try await flush()
        }
    }

    /// Ends the body.
    /// - Returns: The body: in memory, or file-backed when it outgrew the memory limit.
    /// - Throws: ``CacheChainError`` `storage-failed` when the last bytes cannot be written.
    package func finish() async throws(CacheChainError) -> PipelineBody {
        guard let writer else {
            defer { pending = [] }
            return PipelineBody(pending)
        }
        try await flush()
        self.writer = nil
        return try await OffPoolIO.run { () throws(CacheChainError) in try writer.file.finish() }
    }

    /// Drops what was received and deletes the spool file, if any.
    package func discard() {
        pending = []
        writer?.file.discard()
        writer = nil
    }

    private func flush() async throws(CacheChainError) {
        guard let writer, !pending.isEmpty else { return }
        let batch = pending
        pending = []
        pending.reserveCapacity(Self.batchSize)
        do throws(CacheChainError) {
            try await OffPoolIO.run { () throws(CacheChainError) in try writer.file.append(batch) }
        } catch {
            discard()
            throw error
        }
    }
}
