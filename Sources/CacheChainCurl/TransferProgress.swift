public import CacheChainCore

/// How far a response body has arrived, reported to a ``TransferProgressKey`` handler.
public struct TransferProgress: Sendable, Hashable {
    /// Body bytes received so far (after content decoding).
    public var receivedBytes: Int
    /// The body's announced size (`Content-Length`), when the origin sent one and the body is not
    /// content-encoded.
    public var expectedBytes: Int?
    /// Whether this is the last report of the transfer (the body is complete).
    public var isComplete: Bool

    /// Creates a report.
    /// - Parameters:
    ///   - receivedBytes: Bytes received so far.
    ///   - expectedBytes: The announced size, if known.
    ///   - isComplete: Whether the body is complete.
    public init(receivedBytes: Int, expectedBytes: Int?, isComplete: Bool) {
        self.receivedBytes = receivedBytes
        self.expectedBytes = expectedBytes
        self.isComplete = isComplete
    }
}

/// The context key of a handler that ``CurlTransport`` calls as a response body arrives: each time the
/// received count crosses a multiple of ``reportingInterval``, and once when the body is complete. For progress bars on long downloads.
///
/// The handler runs on the transport's libcurl thread, in the middle of the transfer: it must return quickly
/// and must not block (write a line, update an atomic).
///
/// ```swift
/// var values = ContextValues()
/// values[TransferProgressKey.self] = { progress in print(progress.receivedBytes) }
/// let response = try await client.send(PipelineRequest(head: request), values: values)
/// ```
public enum TransferProgressKey: ContextValueKey {
    /// The handler.
    public typealias Value = @Sendable (TransferProgress) -> Void

    /// How many bytes arrive between two reports: 1 MiB.
    public static let reportingInterval = 1 << 20
}
