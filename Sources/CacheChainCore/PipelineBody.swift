/// The bytes of a request or response body: in memory, or in a file region for large bodies.
///
/// `PipelineBody` is a value. An in-memory body shares its storage between copies until one is mutated; a
/// file-backed body (``init(file:)``) shares one open ``BodyFile``, so handing a 1 GiB response to the
/// cache and to the caller at the same time costs no copy and no memory. Transports spool bodies above a
/// size limit to a file, and disk backends serve file-backed bodies straight from their entry files.
///
/// Read a body whole with ``collect(upTo:)`` or piece by piece with ``forEachChunk(maximumSize:_:)`` or
/// ``chunks(maximumSize:)``, which keep memory bounded for file-backed bodies:
///
/// ```swift
/// for try await chunk in response.body.chunks() {
///     try output.write(contentsOf: chunk)
/// }
/// ```
///
/// Two bodies are equal when they hold the same bytes, whatever their representation.
public struct PipelineBody: Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    enum Representation: Sendable {
        case bytes([UInt8])
        case file(BodyFile)
    }

    var representation: Representation

    /// Creates an in-memory body from bytes.
    /// - Parameter bytes: Any sequence of bytes; it is copied once.
    public init(_ bytes: some Sequence<UInt8>) {
        representation = .bytes(Array(bytes))
    }

    /// Creates an in-memory body holding the UTF-8 encoding of a string.
    /// - Parameter string: The text to encode.
    public init(string: String) {
        representation = .bytes(Array(string.utf8))
    }

    /// Creates an in-memory body from a string literal, encoded as UTF-8.
    /// - Parameter value: The literal.
    public init(stringLiteral value: String) {
        self.init(string: value)
    }

    /// Creates a body that reads a file region.
    /// - Parameter file: The open file region.
    public init(file: BodyFile) {
        representation = .file(file)
    }

    /// An empty body.
    public static var empty: PipelineBody { PipelineBody([]) }

    /// The number of bytes in the body.
    public var count: Int {
        switch representation {
        case .bytes(let bytes): bytes.count
        case .file(let file): file.length
        }
    }

    /// Whether the body has no bytes.
    public var isEmpty: Bool { count == 0 }

    /// The bytes, when the body is held in memory; `nil` for a file-backed body.
    public var inMemoryBytes: [UInt8]? {
        if case .bytes(let bytes) = representation { return bytes }
        return nil
    }

    /// The file region, when the body is file-backed; `nil` for an in-memory body.
    public var file: BodyFile? {
        if case .file(let file) = representation { return file }
        return nil
    }

    /// Returns every byte of the body in one array.
    ///
    /// For a file-backed body this reads the file: prefer ``forEachChunk(maximumSize:_:)`` for large bodies.
    /// - Parameter limit: The largest body to load; a longer body is an error rather than a partial result.
    /// - Returns: The bytes.
    /// - Throws: ``CacheChainError`` with code ``CacheChainError/Code/bodyUnreadable`` when the file cannot be
    ///   read or the body is longer than `limit`.
    public func collect(upTo limit: Int = .max) throws(CacheChainError) -> [UInt8] {
        guard count <= limit else {
            throw CacheChainError(.bodyUnreadable, "the body holds \(count) bytes, more than the limit of \(limit)")
        }
        switch representation {
        case .bytes(let bytes):
            return bytes
        case .file(let file):
            return try file.read(at: 0, count: file.length)
        }
    }

    /// Returns a copy held in memory (the same body when it already is).
    /// - Returns: An in-memory body with the same bytes.
    /// - Throws: ``CacheChainError`` when a file-backed body cannot be read.
    public func loadedIntoMemory() throws(CacheChainError) -> PipelineBody {
        if case .bytes = representation { return self }
        return PipelineBody(try collect())
    }

    /// The body decoded as UTF-8, or `nil` when the bytes are not valid UTF-8 or cannot be read.
    public var string: String? {
        guard let bytes = try? collect() else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    /// A short summary (the byte count and where the bytes are): bodies are never printed, as they may hold
    /// private data.
    public var description: String {
        switch representation {
        case .bytes(let bytes): "PipelineBody(\(bytes.count) bytes)"
        case .file(let file): "PipelineBody(\(file.length) bytes in a file)"
        }
    }
}
