public import HTTPTypes

/// One opt-in rule of body-keyed caching (``CachePolicyInterceptor/bodyKeyedCaching``): which `POST` or `QUERY` requests are cached under a
/// key that includes a digest of their method and body (GraphQL queries, search APIs).
///
/// ```swift
/// let graphQLQueries = BodyKeyedCachingRule(
///     "graphql", host: "api.example.com", pathPrefix: "/graphql",
///     where: { _, body in !String(decoding: body, as: UTF8.self).contains("mutation") }
/// )
/// ```
/// Only `POST` and `QUERY` can be body-keyed: other methods named in `methods` are ignored, so `PUT`,
/// `DELETE` or `PATCH` are never cached. The first rule that matches a request applies.
public struct BodyKeyedCachingRule: Sendable {
    /// The `QUERY` method (a safe method with a body, draft-ietf-httpbis-safe-method-w-body).
    public static let query = HTTPRequest.Method("QUERY")!  // a literal, valid token: covered by BodyKeyedCachingEndToEndTests

    /// The rule's name, quoted in the trace.
    public var name: String
    /// The methods it applies to: `POST` and `QUERY` at most.
    public let methods: Set<HTTPRequest.Method>
    /// The largest body that is digested; a longer one is sent on uncached.
    public var maximumBodySize: Int
    /// Which requests the rule matches by host and path: ``PolicyOverrideRule``'s matching.
    var target: PolicyOverrideRule
    /// An extra condition on the request and its body (e.g. not a GraphQL mutation); `nil` accepts all.
    public var isCacheable: (@Sendable (HTTPRequest, [UInt8]) -> Bool)?

    /// Creates a rule.
    /// - Parameters:
    ///   - name: Its name, for the trace.
    ///   - host: The host (`*.` for subdomains); any by default.
    ///   - pathPrefix: A path prefix; any path by default.
    ///   - pathGlob: A path glob (``PolicyOverrideRule/pathGlob``); any path by default.
    ///   - methods: `POST` and ``query`` by default; any other method is dropped.
    ///   - maximumBodySize: The largest body digested, 64 KiB by default.
    ///   - isCacheable: An extra condition on the request and its body bytes.
    public init(
        _ name: String,
        host: String? = nil,
        pathPrefix: String? = nil,
        pathGlob: String? = nil,
        methods: Set<HTTPRequest.Method> = [.post, Self.query],
        maximumBodySize: Int = 64 * 1024,
        where isCacheable: (@Sendable (HTTPRequest, [UInt8]) -> Bool)? = nil
    ) {
        self.name = name
        self.methods = methods.intersection([.post, Self.query])
        self.maximumBodySize = max(0, maximumBodySize)
        self.target = PolicyOverrideRule(name, host: host, pathPrefix: pathPrefix, pathGlob: pathGlob)
        self.isCacheable = isCacheable
    }

    /// Whether the rule applies to a request's method, host and path (not yet its body).
    /// - Parameter request: The request.
    /// - Returns: Whether the method is one of ``methods`` and the host and path match.
    public func matches(_ request: HTTPRequest) -> Bool {
        methods.contains(request.method) && target.matches(request)
    }
}
