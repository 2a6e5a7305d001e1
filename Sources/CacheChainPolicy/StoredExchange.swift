public import Foundation
public import HTTPTypes

/// What the policy engine needs to know about a stored response: the request that produced it, its head,
/// and when the request was sent and the response received (RFC 9111 §4.2.3 `request_time`/`response_time`).
public struct StoredExchange: Sendable, Hashable {
    /// The request that produced the response (its fields select `Vary` variants).
    public var request: HTTPRequest
    /// The stored response head.
    public var response: HTTPResponse
    /// When the request that produced the response was sent.
    public var requestTime: Date
    /// When the response was received.
    public var responseTime: Date

    /// Creates a stored exchange.
    /// - Parameters:
    ///   - request: The request that produced the response.
    ///   - response: The response head.
    ///   - requestTime: When the request was sent.
    ///   - responseTime: When the response was received.
    public init(request: HTTPRequest, response: HTTPResponse, requestTime: Date, responseTime: Date) {
        self.request = request
        self.response = response
        self.requestTime = requestTime
        self.responseTime = responseTime
    }
}
