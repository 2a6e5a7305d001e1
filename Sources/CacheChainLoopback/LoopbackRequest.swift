#if Loopback
/// A request the loopback origin received, as logged for assertions.
public struct LoopbackRequest: Sendable {
    /// The method, e.g. `GET`.
    public var method: String
    /// The request target: path and query.
    public var path: String
    /// The header lines in order.
    public var headers: [LoopbackHeader]
    /// The request body.
    public var body: [UInt8]
    /// The HTTP version the request arrived over: ``LoopbackHTTPVersion/http2`` for a stream of an HTTP/2
    /// connection (whose header names are lowercase, with `:authority` given as `Host`), else the
    /// version of the HTTP/1.x request line.
    public var version: LoopbackHTTPVersion

    /// Creates a logged request.
    /// - Parameters:
    ///   - method: The method.
    ///   - path: The path and query.
    ///   - headers: The header lines.
    ///   - body: The body.
    ///   - version: The HTTP version it arrived over; HTTP/1.1 by default.
    public init(
        method: String,
        path: String,
        headers: [LoopbackHeader],
        body: [UInt8],
        version: LoopbackHTTPVersion = .http1_1
    ) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.version = version
    }

    /// The first value of a header, by case-insensitive name.
    /// - Parameter name: The field name.
    /// - Returns: The value or `nil`.
    public func header(_ name: String) -> String? {
        headerValues(name).first
    }

    /// Every value of a header, by case-insensitive name.
    /// - Parameter name: The field name.
    /// - Returns: The values in order.
    public func headerValues(_ name: String) -> [String] {
        let lowered = name.lowercased()
        return headers.filter { $0.name.lowercased() == lowered }.map(\.value)
    }

    /// The path without its query.
    public var pathWithoutQuery: Substring { path.prefix { $0 != "?" } }
}
#endif
