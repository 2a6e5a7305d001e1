#if Loopback
/// A failure of the loopback origin (binding, TLS set-up, writing the certificate).
public struct LoopbackError: Error, Sendable, CustomStringConvertible {
    /// What failed and what to do.
    public var description: String

    /// Creates an error.
    /// - Parameter description: What failed and what to do.
    public init(_ description: String) {
        self.description = description
    }
}
#endif
