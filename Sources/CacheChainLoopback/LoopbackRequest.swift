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

    /// Creates a logged request.
    /// - Parameters:
    ///   - method: The method.
    ///   - path: The path and query.
    ///   - headers: The header lines.
    ///   - body: The body.
    public init(method: String, path: String, headers: [LoopbackHeader], body: [UInt8]) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
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
    public var pathWithoutQuery: Substring {
        path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? Substring(path)
    }
}
