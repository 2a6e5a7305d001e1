import FoundationEssentials
import HTTPTypes

/// What the freshness rules read from a stored response's head, parsed once when the exchange is made
/// instead of on every decision: its `Cache-Control` directives, its `Date` and its `Age`.
///
/// Derived from the head alone (no configuration), so it is valid for as long as the head is unchanged;
/// ``StoredExchange`` recomputes it whenever its response is replaced.
struct ResponseFacts: Sendable {
    let directives: CacheControl
    /// The response's `Date`, or `nil` when it is missing, repeated or not an HTTP-date.
    let date: Date?
    /// The first member of the `Age` field in seconds, or `nil` when there is none or it is invalid (RFC 9111 §5.1).
    let age: Int?

    init(_ response: HTTPResponse) {
        let fields = response.headerFields
        directives = CacheControl(fields)
        date = fields.fieldValue(.date).flatMap(HTTPDate.parse)
        // §5.1: Age is a singleton, but a list-based or repeated one counts its first member; when that member
        // is invalid, the field is ignored (not replaced by a later member).
        let firstLine = fields.first { $0.name == .age }?.value
        let firstMember = firstLine?.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first
        age = firstMember.flatMap { DeltaSeconds.parse($0.trimmingOWS()).value }
    }
}
