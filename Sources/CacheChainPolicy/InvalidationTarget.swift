/// A URI whose stored responses must be invalidated after an unsafe request succeeded (RFC 9111 §4.4).
public struct InvalidationTarget: Sendable, Hashable {
    /// The scheme, lowercased.
    public var scheme: String
    /// The authority (host and optional port).
    public var authority: String
    /// The path and query.
    public var path: String

    /// Creates a target.
    /// - Parameters:
    ///   - scheme: The scheme.
    ///   - authority: The authority.
    ///   - path: The path and query.
    public init(scheme: String, authority: String, path: String) {
        self.scheme = scheme
        self.authority = authority
        self.path = path
    }
}
