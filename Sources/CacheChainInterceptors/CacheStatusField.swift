public import CacheChainCore
public import CacheChainPolicy
public import Foundation
public import HTTPTypes

/// The `Cache-Status` field value (RFC 9211) that describes what the cache did for one response, built from
/// what the pipeline already reports: the response's `CacheStatus`, its trace and its head.
///
/// | Outcome | Value |
/// |---|---|
/// | fresh hit | `CacheChain; hit; ttl=540` |
/// | stale served (`max-stale`, `stale-while-revalidate`, a policy) | `CacheChain; hit; ttl=-30; detail=stale-while-revalidate` |
/// | stale served because the origin failed (unreachable or 5xx) | `CacheChain; fwd=stale; ttl=-30; detail=stale-if-error` |
/// | stale served because the origin could not be reached, without `stale-if-error` (RFC 9111 §4.2.4) | `CacheChain; fwd=stale; ttl=-30; detail=origin-unreachable` |
/// | revalidated with a 304 | `CacheChain; fwd=stale; fwd-status=304; ttl=600; stored` |
/// | nothing stored | `CacheChain; fwd=uri-miss; fwd-status=200; stored` |
/// | other `Vary` variants only | `CacheChain; fwd=vary-miss; fwd-status=200; stored` |
/// | stale and replaced | `CacheChain; fwd=stale; fwd-status=200; stored` |
/// | the request asked for the network | `CacheChain; fwd=request; fwd-status=200; detail=request-no-cache` |
/// | a method the cache does not serve | `CacheChain; fwd=method; fwd-status=201; detail=unsafe-method` |
/// | a bypassing policy | `CacheChain; fwd=bypass; fwd-status=200` |
/// | `only-if-cached` with nothing usable (504) | `CacheChain; detail=only-if-cached` |
///
/// `detail` is the first reason code of the trace that explains the outcome (a token, as RFC 9211 §2.8 allows).
public enum CacheStatusField {
    /// The field's name, `Cache-Status`.
    public static let name = HTTPField.Name("Cache-Status")!  // a literal, valid token: used by every CacheStatusEndToEndTests case

    /// The value for one response.
    /// - Parameters:
    ///   - response: The response the pipeline produced.
    ///   - cacheName: The cache's identifier, the member's name (an sf-token or sf-string); `CacheChain` by default.
    ///   - now: The time the response is served, for `ttl`.
    ///   - policy: The freshness rules, for `ttl`.
    /// - Returns: One list member, e.g. `CacheChain; hit; ttl=540`.
    public static func value(
        for response: PipelineResponse,
        cacheName: String = "CacheChain",
        now: Date,
        policy: CachePolicyConfiguration = .init()
    ) -> String {
        ([cacheName] + parameterList(for: response, now: now, policy: policy)).joined(separator: "; ")
    }

    /// The member's parameters without its name, e.g. `hit; ttl=540`: the `http.cache.status` attribute of a
    /// request's client span.
    package static func parameters(for response: PipelineResponse, now: Date, policy: CachePolicyConfiguration) -> String {
        parameterList(for: response, now: now, policy: policy).joined(separator: "; ")
    }

    private static func parameterList(for response: PipelineResponse, now: Date, policy: CachePolicyConfiguration) -> [String] {
        var parameters: [String] = []
        let codes = response.trace.map(\.code)
        let status = response.head.status.code
        switch response.cacheStatus {
        case .hit:
            parameters = ["hit", "ttl=\(ttl(of: response, now: now, policy: policy))"]
        case .stale where !codes.contains(.staleIfError):
            parameters = ["hit", "ttl=\(ttl(of: response, now: now, policy: policy))"]
            parameters += detail(from: codes, among: [.staleWhileRevalidate, .maxStale, .policy])
        case .stale, .offline:
            let detail = codes.contains(.originUnreachable) ? "origin-unreachable" : "stale-if-error"
            parameters = ["fwd=stale", "ttl=\(ttl(of: response, now: now, policy: policy))", "detail=\(detail)"]
        case .revalidated:
            parameters = ["fwd=stale", "fwd-status=304", "ttl=\(ttl(of: response, now: now, policy: policy))"]
            if codes.contains(.revalidated) { parameters.append("stored") }
        case .unsatisfiable:
            parameters = ["detail=only-if-cached"]
        case .bypass:
            let forward = forwardReason(codes)
            let isMethod = forward.fwd == "method"
            parameters = ["fwd=\(isMethod ? "method" : "bypass")", "fwd-status=\(status)"]
            if codes.contains(.storable) { parameters.append("stored") }
            if isMethod, let detail = forward.detail { parameters.append("detail=\(detail.rawValue)") }
        case .miss:
            let forward = forwardReason(codes)
            parameters = ["fwd=\(forward.fwd)", "fwd-status=\(status)"]
            if codes.contains(.storable) { parameters.append("stored") }
            if codes.contains(.coalesced) { parameters.append("collapsed") }
            if let detail = forward.detail { parameters.append("detail=\(detail.rawValue)") }
        }
        return parameters
    }

    /// Why a miss went to the origin (RFC 9211 §2.3's `fwd` values), and the reason code that says so: the
    /// first lookup reason of the trace decides (the storage decision's reasons come after them).
    static func forwardReason(_ codes: [CacheReason.Code]) -> (fwd: String, detail: CacheReason.Code?) {
        let staleDetails: [CacheReason.Code] = [.noValidator, .mustRevalidate, .responseNoCache]
        for code in codes {
            switch code {
            case .unsafeMethod, .method: return ("method", code)
            case .requestNoCache, .requestMaxAge, .minFresh, .policy, .hostMismatch: return ("request", code)
            case .varyMismatch: return ("vary-miss", nil)
            case .noStoredResponse: return ("uri-miss", nil)
            case .stale, .responseNoCache, .mustRevalidate, .noValidator:
                return ("stale", codes.first(where: { staleDetails.contains($0) }))
            default: continue
            }
        }
        return ("miss", nil)
    }

    /// `detail=<code>` for the first trace code among `candidates`, or nothing.
    private static func detail(from codes: [CacheReason.Code], among candidates: [CacheReason.Code]) -> [String] {
        codes.first(where: { candidates.contains($0) }).map { ["detail=\($0.rawValue)"] } ?? []
    }

    /// The remaining freshness of a served stored response in whole seconds, negative once stale: its freshness
    /// lifetime minus the `Age` the cache put on it.
    private static func ttl(of response: PipelineResponse, now: Date, policy: CachePolicyConfiguration) -> Int {
        let engine = CachePolicyEngine(configuration: policy)
        let exchange = StoredExchange(
            request: HTTPRequest(method: .get, scheme: nil, authority: nil, path: nil),
            response: response.head, requestTime: now, responseTime: now
        )
        let lifetime = engine.freshnessLifetime(of: exchange).seconds
        let age = response.head.headerFields[.age].flatMap { Double($0) } ?? 0
        return Int((lifetime - age).rounded(.down))
    }
}
