import CacheChainCore

/// Where the plugin spools what it produces — sealed envelopes and opened bodies — and how much it keeps
/// in memory: up to `inMemoryLimit` bytes in memory, larger ones in a temporary file in `directory`.
struct SpoolPolicy: Sendable {
    /// Where larger outputs go (unique files, mode 0600, deleted when the body is released).
    let directory: String
    /// The largest output kept in memory.
    let inMemoryLimit: Int
}

/// One output of known size being written: into an array when it fits the ``SpoolPolicy``'s limit,
/// otherwise into a ``BodyFileWriter`` (bounded memory for large bodies).
///
/// Not `Sendable`: it lives inside one seal or open call. A sink dropped without ``finish()`` deletes its file.
final class ByteSink {
    private var bytes: [UInt8] = []
    private let file: BodyFileWriter?

    /// Creates a sink for `expectedCount` bytes.
    /// - Throws: ``CacheChainError`` `storage-failed` when the spool file cannot be created.
    init(expectedCount: Int, policy: SpoolPolicy) throws(CacheChainError) {
        if expectedCount > policy.inMemoryLimit {
            file = try BodyFileWriter(directory: policy.directory)
        } else {
            file = nil
            bytes.reserveCapacity(expectedCount)
        }
    }

    /// The number of bytes written so far.
    var count: Int { file?.count ?? bytes.count }

    /// Appends bytes.
    /// - Throws: ``CacheChainError`` `storage-failed` when the spool file cannot be written (e.g. a full disk).
    func append(_ chunk: UnsafeRawBufferPointer) throws(CacheChainError) {
        if let file { try file.append(chunk) } else { appendBytes(chunk, to: &bytes) }
    }

    /// The output as a body: in memory, or file-backed (the file is deleted when the body is released).
    /// - Throws: ``CacheChainError`` when the spool file cannot be closed and reopened.
    func finish() throws(CacheChainError) -> PipelineBody {
        if let file { return try file.finish() }
        return BodyBytes.body(bytes)
    }
}
