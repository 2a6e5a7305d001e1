public import Foundation
public import HTTPTypes

/// What the policy engine needs to know about a stored response: the request that produced it, its head,
/// and when the request was sent and the response received (RFC 9111 §4.2.3 `request_time`/`response_time`).
///
/// The fields of the head that every decision reads (`Cache-Control`, `Date`, `Age`) are parsed when the
/// exchange is made and again whenever ``response`` is replaced, not on every decision.
public struct StoredExchange: Sendable, Hashable {
    /// The request that produced the response (its fields select `Vary` variants).
    public var request: HTTPRequest
    /// The stored response head.
    public var response: HTTPResponse {
        get { storedResponse }
        set {
            storedResponse = newValue
            facts = ResponseFacts(newValue)
        }
    }
    /// When the request that produced the response was sent.
    public var requestTime: Date
    /// When the response was received.
    public var responseTime: Date

    private var storedResponse: HTTPResponse
    /// The head's parsed `Cache-Control`, `Date` and `Age` (derived from ``response``).
    private(set) var facts: ResponseFacts

    /// Creates a stored exchange.
    /// - Parameters:
    ///   - request: The request that produced the response.
    ///   - response: The response head.
    ///   - requestTime: When the request was sent.
    ///   - responseTime: When the response was received.
    public init(request: HTTPRequest, response: HTTPResponse, requestTime: Date, responseTime: Date) {
        self.request = request
        self.storedResponse = response
        self.facts = ResponseFacts(response)
        self.requestTime = requestTime
        self.responseTime = responseTime
    }
}
