/// The bytes of a request or response body.
///
/// `HTTPBody` is a value: copies share storage until one of them is mutated, so handing a body to the
/// cache and to the caller at the same time does not duplicate a large payload.
/// Today every body is buffered; the type is kept opaque so that a streamed representation can be added
/// without breaking callers.
public struct HTTPBody: Sendable, Hashable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The body's bytes.
    public var bytes: [UInt8]

    /// Creates a body from bytes.
    /// - Parameter bytes: Any sequence of bytes; it is copied once.
    public init(_ bytes: some Sequence<UInt8>) {
        self.bytes = Array(bytes)
    }

    /// Creates a body holding the UTF-8 encoding of a string.
    /// - Parameter string: The text to encode.
    public init(string: String) {
        self.bytes = Array(string.utf8)
    }

    /// Creates a body from a string literal, encoded as UTF-8.
    /// - Parameter value: The literal.
    public init(stringLiteral value: String) {
        self.init(string: value)
    }

    /// An empty body.
    public static var empty: HTTPBody { HTTPBody([]) }

    /// The number of bytes in the body.
    public var count: Int { bytes.count }

    /// Whether the body has no bytes.
    public var isEmpty: Bool { bytes.isEmpty }

    /// The body decoded as UTF-8, or `nil` when the bytes are not valid UTF-8.
    public var string: String? {
        String(validating: bytes, as: UTF8.self)
    }

    /// A short summary (the byte count): bodies are never printed, as they may hold private data.
    public var description: String { "HTTPBody(\(bytes.count) bytes)" }
}
