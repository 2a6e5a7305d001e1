public import FoundationEssentials
public import HTTPTypes

/// What the policy engine needs to know about a stored response: the request that produced it, its head,
/// and when the request was sent and the response received (RFC 9111 §4.2.3 `request_time`/`response_time`).
///
/// The fields of the head that every decision reads (`Cache-Control`, `Date`, `Age`) are parsed when the
/// exchange is made and again whenever ``response`` is replaced, not on every decision.
public struct StoredExchange: Sendable, Hashable {
    /// The request that produced the response (its fields select `Vary` variants).
    public var request: HTTPRequest {
        get { box.values.request }
        set { update(keepingFacts: true) { $0.request = newValue } }
    }
    /// The stored response head.
    public var response: HTTPResponse {
        get { box.values.response }
        set { update(keepingFacts: false) { $0.response = newValue } }
    }
    /// When the request that produced the response was sent.
    public var requestTime: Date {
        get { box.values.requestTime }
        set { update(keepingFacts: true) { $0.requestTime = newValue } }
    }
    /// When the response was received.
    public var responseTime: Date {
        get { box.values.responseTime }
        set { update(keepingFacts: true) { $0.responseTime = newValue } }
    }

    /// The head's parsed `Cache-Control`, `Date` and `Age` (derived from ``response``).
    var facts: ResponseFacts { box.facts }

    /// The exchange's properties as one value: their equality and hashing are the exchange's.
    private struct Values: Sendable, Hashable {
        var request: HTTPRequest
        var response: HTTPResponse
        var requestTime: Date
        var responseTime: Date
    }

    /// The values and the facts of their head, immutable and shared between copies (the engine is handed
    /// arrays of exchanges on every lookup: copying one is one retain). Setting a property makes a new box.
    private final class Box: Sendable {
        let values: Values
        let facts: ResponseFacts

        /// Makes a box; `facts` are those of the same response head (read anew when `nil`).
        init(_ values: Values, facts: ResponseFacts? = nil) {
            self.values = values
            self.facts = facts ?? ResponseFacts(values.response)
        }
    }

    private var box: Box

    /// Replaces the box with one holding the changed values; the facts are kept when the head is unchanged.
    private mutating func update(keepingFacts: Bool, _ change: (inout Values) -> Void) {
        var values = box.values
        change(&values)
        box = Box(values, facts: keepingFacts ? box.facts : nil)
    }

    /// Creates a stored exchange.
    /// - Parameters:
    ///   - request: The request that produced the response.
    ///   - response: The response head.
    ///   - requestTime: When the request was sent.
    ///   - responseTime: When the response was received.
    public init(request: HTTPRequest, response: HTTPResponse, requestTime: Date, responseTime: Date) {
        box = Box(Values(request: request, response: response, requestTime: requestTime, responseTime: responseTime))
    }

    /// Whether request, response and both times are equal.
    public static func == (lhs: StoredExchange, rhs: StoredExchange) -> Bool {
        lhs.box === rhs.box || lhs.box.values == rhs.box.values
    }

    /// Hashes request, response and both times.
    public func hash(into hasher: inout Hasher) {
        box.values.hash(into: &hasher)
    }
}
