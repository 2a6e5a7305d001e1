public import HTTPTypes

/// A request travelling down the interceptor chain.
///
/// A struct (not a tuple) so that new fields never break interceptors.
public struct PipelineRequest: Sendable, Hashable {
    /// The request head: method, scheme, authority, path and fields.
    public var head: HTTPRequest
    /// The request body, for methods that carry one.
    public var body: HTTPBody?

    /// Creates a request.
    /// - Parameters:
    ///   - head: The request head.
    ///   - body: An optional body.
    public init(head: HTTPRequest, body: HTTPBody? = nil) {
        self.head = head
        self.body = body
    }
}
