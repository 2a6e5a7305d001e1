import CacheChainPolicy
import Foundation
import HTTPTypes

/// A fixed instant all policy tests count from: Sun, 06 Nov 1994 08:49:37 GMT.
let t0 = Date(timeIntervalSince1970: 784_111_777)

/// Builds header fields from `(name, value)` pairs; names must be valid tokens.
func fields(_ pairs: [(String, String)]) -> HTTPFields {
    var result = HTTPFields()
    for (name, value) in pairs {
        guard let fieldName = HTTPField.Name(name) else { continue }
        result.append(HTTPField(name: fieldName, value: value))
    }
    return result
}

/// A GET request for `path` on `http://example.com`.
func request(_ path: String = "/", _ pairs: [(String, String)] = [], method: HTTPRequest.Method = .get) -> HTTPRequest {
    HTTPRequest(method: method, scheme: "http", authority: "example.com", path: path, headerFields: fields(pairs))
}

/// A response head.
func response(_ status: Int = 200, _ pairs: [(String, String)] = []) -> HTTPResponse {
    HTTPResponse(status: .init(code: status), headerFields: fields(pairs))
}

/// A stored exchange received at `t0` (or `at`), with `Date` equal to the reception time unless given.
func stored(
    _ pairs: [(String, String)],
    status: Int = 200,
    request requestPairs: [(String, String)] = [],
    at received: Date = t0,
    sentAt: Date? = nil
) -> StoredExchange {
    var head = response(status, pairs)
    if head.headerFields[.date] == nil { head.headerFields[.date] = HTTPDate.format(received) }
    return StoredExchange(
        request: request("/", requestPairs),
        response: head,
        requestTime: sentAt ?? received,
        responseTime: received
    )
}

/// An HTTP-date `seconds` after `t0`.
func date(_ seconds: TimeInterval) -> String { HTTPDate.format(t0.addingTimeInterval(seconds)) }

/// A short name for a decision, for table comparisons.
func kind(_ decision: CacheDecision) -> String {
    switch decision {
    case .useStored(_, let report, _): report.isFresh ? "use" : "use-stale"
    case .useStoredAndRevalidate: "use-and-revalidate"
    case .validate: "validate"
    case .fetch: "fetch"
    case .unsatisfiable: "unsatisfiable"
    }
}
