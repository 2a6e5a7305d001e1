#if Loopback
/// One header field line of a loopback request or route.
public struct LoopbackHeader: Sendable, Hashable {
    /// The field name as written.
    public var name: String
    /// The field value.
    public var value: String

    /// Creates a header line.
    /// - Parameters:
    ///   - name: The field name.
    ///   - value: The field value.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}
#endif
