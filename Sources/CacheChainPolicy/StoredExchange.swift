public import Foundation
public import HTTPTypes

/// What the policy engine needs to know about a stored response: the request that produced it, its head,
/// and when the request was sent and the response received (RFC 9111 §4.2.3 `request_time`/`response_time`).
///
/// The fields of the head that every decision reads (`Cache-Control`, `Date`, `Age`) are parsed when the
/// exchange is made and again whenever ``response`` is replaced, not on every decision.
public struct StoredExchange: Sendable, Hashable {
    /// The request that produced the response (its fields select `Vary` variants).
    public var request: HTTPRequest {
        get { values.request }
        set { values = Values(request: newValue, response: response, requestTime: requestTime, responseTime: responseTime) }
    }
    /// The stored response head.
    public var response: HTTPResponse {
        get { values.response }
        set { values = Values(request: request, response: newValue, requestTime: requestTime, responseTime: responseTime) }
    }
    /// When the request that produced the response was sent.
    public var requestTime: Date {
        get { values.requestTime }
        set { values = Values(request: request, response: response, requestTime: newValue, responseTime: responseTime) }
    }
    /// When the response was received.
    public var responseTime: Date {
        get { values.responseTime }
        set { values = Values(request: request, response: response, requestTime: requestTime, responseTime: newValue) }
    }

    /// The head's parsed `Cache-Control`, `Date` and `Age` (derived from ``response``).
    var facts: ResponseFacts { values.facts }

    /// The exchange's values, immutable and shared between copies (the engine is handed arrays of
    /// exchanges on every lookup: copying one is one retain). Setting a property makes a new box.
    private final class Values: Sendable {
        let request: HTTPRequest
        let response: HTTPResponse
        let requestTime: Date
        let responseTime: Date
        let facts: ResponseFacts

        init(request: HTTPRequest, response: HTTPResponse, requestTime: Date, responseTime: Date) {
            self.request = request
            self.response = response
            self.requestTime = requestTime
            self.responseTime = responseTime
            facts = ResponseFacts(response)
        }
    }

    private var values: Values

    /// Creates a stored exchange.
    /// - Parameters:
    ///   - request: The request that produced the response.
    ///   - response: The response head.
    ///   - requestTime: When the request was sent.
    ///   - responseTime: When the response was received.
    public init(request: HTTPRequest, response: HTTPResponse, requestTime: Date, responseTime: Date) {
        values = Values(request: request, response: response, requestTime: requestTime, responseTime: responseTime)
    }

    /// Whether request, response and both times are equal.
    public static func == (lhs: StoredExchange, rhs: StoredExchange) -> Bool {
        if lhs.values === rhs.values { return true }
        return lhs.request == rhs.request && lhs.response == rhs.response
            && lhs.requestTime == rhs.requestTime && lhs.responseTime == rhs.responseTime
    }

    /// Hashes request, response and both times.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(request)
        hasher.combine(response)
        hasher.combine(requestTime)
        hasher.combine(responseTime)
    }
}
