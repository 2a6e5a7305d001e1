import CacheChainCore

/// How a ``BatchExecutor`` replies with a response body too large to inline in one JSON line.
///
/// A body travels inside its reply line (`"body"` or `"body_base64"`) up to ``maximumInlineSize`` bytes.
/// A larger one — a download, or a small gzip response that decodes to hundreds of megabytes — would make
/// one line of that size and hold several copies of it in memory, so instead:
/// - with a ``fileDirectory``, the body is written to a new file there (mode 0600) and the reply names it:
///   `"body_file":"/dir/cachechain-body-7-…","body_length":629145600`. The file is the peer's to delete;
/// - without one, the reply is an error that says so: `{"id":7,"error":"body-too-large: …"}`.
///
/// Memory for replies is then bounded by about `maximumInFlight × 3 × maximumInlineSize` (the body, its
/// JSON text and the bytes written), whatever the origin sends and however slowly the peer reads.
///
/// ```swift
/// let executor = BatchExecutor(client: client, bodyLimit: BatchBodyLimit(maximumInlineSize: 1 << 20, fileDirectory: "/tmp/bodies"))
/// ```
public struct BatchBodyLimit: Sendable, Hashable {
    /// The largest body inlined in a reply line, in bytes.
    public var maximumInlineSize: Int
    /// Where larger bodies are written, one file each; `nil` replies with a `body-too-large` error instead.
    public var fileDirectory: String?

    /// The default ``maximumInlineSize``: 8 MiB.
    public static let defaultMaximumInlineSize = 8 << 20

    /// Creates a limit.
    /// - Parameters:
    ///   - maximumInlineSize: The largest body inlined, in bytes (negative values read as 0); 8 MiB.
    ///   - fileDirectory: An existing directory for larger bodies; none (larger bodies are an error reply).
    public init(maximumInlineSize: Int = BatchBodyLimit.defaultMaximumInlineSize, fileDirectory: String? = nil) {
        self.maximumInlineSize = max(0, maximumInlineSize)
        self.fileDirectory = fileDirectory
    }
}

extension CacheChainError.Code {
    /// A response body was larger than a reply line may carry and no directory was given for it.
    static let bodyTooLarge = Self(rawValue: "body-too-large")
}
