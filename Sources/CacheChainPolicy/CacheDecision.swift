public import HTTPTypes

/// What to do with a request, given the stored responses for its cache key (RFC 9111 §4).
///
/// Indices refer to the `stored` array passed to ``CachePolicyEngine/decide(request:policy:stored:now:)``.
public enum CacheDecision: Sendable, Hashable {
    /// Serve this stored response without contacting the origin.
    case useStored(index: Int, FreshnessReport, [CacheReason])
    /// Serve this stale response now and revalidate it in the background with `conditional`
    /// (`stale-while-revalidate`, RFC 5861).
    case useStoredAndRevalidate(index: Int, conditional: HTTPRequest, FreshnessReport, [CacheReason])
    /// Send `conditional` (a conditional `GET`, §4.3.1) to validate these stored responses.
    case validate(indices: [Int], conditional: HTTPRequest, [CacheReason])
    /// Forward the request to the origin; no stored response can be used.
    case fetch([CacheReason])
    /// The request forbids the network and nothing usable is stored: answer 504 (`only-if-cached`) or
    /// fail with `not-in-cache` (`returnCacheDataDontLoad`).
    case unsatisfiable([CacheReason])

    /// The reasons, whatever the decision.
    public var reasons: [CacheReason] {
        switch self {
        case .useStored(_, _, let reasons), .useStoredAndRevalidate(_, _, _, let reasons),
            .validate(_, _, let reasons), .fetch(let reasons), .unsatisfiable(let reasons):
            reasons
        }
    }
}
