public import FoundationEssentials
public import HTTPTypes

extension CachePolicyEngine {
    /// Decides how to answer a request from the stored responses under its key (RFC 9111 §4).
    ///
    /// Apple's policies first: `reloadIgnoring…` fetch; `returnCacheData…` use any matching stored
    /// response whatever its age (`…DontLoad` is unsatisfiable without one); `reloadRevalidatingCacheData`
    /// validates — except a fresh `immutable` response, unless the request also says `no-cache` or
    /// `Pragma: no-cache` (RFC 8246: a reload asks for revalidation, a forced reload for the origin's answer). Under `useProtocolCachePolicy` the RFC decides:
    /// - `no-cache` in the request (or `Pragma: no-cache` without `Cache-Control`, §5.4) or in the response
    ///   → validate (§5.2.1.4, §5.2.2.4);
    /// - fresh, within the request's `max-age` and `min-fresh` → use it (an `immutable` fresh response
    ///   ignores the request's `max-age`, `max-age=0` included, RFC 8246; the request's `no-cache` above still
    ///   validates it);
    /// - stale, not `must-revalidate`: within the request's `max-stale` → use it; within the response's
    ///   `stale-while-revalidate` → use it and revalidate in the background (RFC 5861);
    /// - otherwise validate with a conditional `GET` (or fetch when there is no validator), or answer
    ///   `only-if-cached` with ``CacheDecision/unsatisfiable(_:)`` (§5.2.1.7).
    /// - Parameters:
    ///   - request: The request.
    ///   - policy: The request's cache policy.
    ///   - stored: The stored exchanges under the request's key (all `Vary` variants).
    ///   - now: The current time.
    /// - Returns: The decision, with reasons for the trace.
    public func decide(
        request: HTTPRequest,
        policy: RequestCachePolicy,
        stored: [StoredExchange],
        now: Date
    ) -> CacheDecision {
        switch policy {
        case .reloadIgnoringLocalCacheData:
            return .fetch([CacheReason(.policy, "reloadIgnoringLocalCacheData ignores stored responses")])
        case .reloadIgnoringLocalAndRemoteCacheData:
            return .fetch([CacheReason(.policy, "reloadIgnoringLocalAndRemoteCacheData ignores every cache on the way")])
        default:
            break
        }
        guard request.method == .get || request.method == .head else {
            return .fetch([CacheReason(.method, "\(request.method) requests are not answered from the cache")])
        }
        let (requestDirectives, pragmaNoCache) = requestDirectives(request)
        let cannotLoad = policy == .returnCacheDataDontLoad
            || (policy == .useProtocolCachePolicy && requestDirectives.contains(.onlyIfCached))
        func miss(_ reason: CacheReason) -> CacheDecision {
            if cannotLoad {
                let why = policy == .returnCacheDataDontLoad ? "returnCacheDataDontLoad" : "only-if-cached"
                return .unsatisfiable([reason, CacheReason(.onlyIfCached, "\(why) forbids the network")])
            }
            return .fetch([reason])
        }
        if let mismatch = hostMismatch(of: request) {
            return miss(mismatch)  // whatever is stored belongs to the URL's host, not the one asked
        }
        guard !stored.isEmpty else {
            return miss(CacheReason(.noStoredResponse, "nothing stored under this key"))
        }
        guard let index = selectVariant(for: request, among: stored) else {
            let detail = stored.count == 1 ? "the stored response's" : "none of the \(stored.count) stored responses'"
            return miss(CacheReason(.varyMismatch, "\(detail) Vary fields match the request"))
        }
        let report = freshness(of: stored[index], now: now)
        switch policy {
        case .returnCacheDataElseLoad, .returnCacheDataDontLoad:
            return .useStored(index: index, report, [
                CacheReason(.policy, "\(policy.rawValue) uses the stored response whatever its age"),
                CacheReason(report.isFresh ? .fresh : .stale, describing: report),
            ])
        case .reloadRevalidatingCacheData:
            let directives = governingDirectives(of: stored[index]).directives
            if report.isFresh, directives.contains(.immutable), !directives.contains(.noCache),
                !requestDirectives.contains(.noCache), !pragmaNoCache
            {
                // RFC 8246 §2: a reload asks for revalidation, which a fresh immutable response does not need.
                return .useStored(index: index, report, [
                    CacheReason(.immutable, "fresh and immutable: reloadRevalidatingCacheData does not revalidate it (RFC 8246)"),
                    CacheReason(.fresh, describing: report),
                ])
            }
            return validateOrFetch(index, stored, request, [
                CacheReason(.policy, "reloadRevalidatingCacheData validates every stored response"),
            ])
        default:
            return protocolDecision(
                request: request,
                requestDirectives: requestDirectives,
                pragmaNoCache: pragmaNoCache,
                stored: stored,
                index: index,
                report: report,
                cannotLoad: cannotLoad
            )
        }
    }

    // swiftlint:disable:next function_parameter_count
    private func protocolDecision(
        request: HTTPRequest,
        requestDirectives: CacheControl,
        pragmaNoCache: Bool,
        stored: [StoredExchange],
        index: Int,
        report: FreshnessReport,
        cannotLoad: Bool
    ) -> CacheDecision {
        let responseDirectives = governingDirectives(of: stored[index]).directives  // Cache-Control parsed when stored
        var reasons: [CacheReason] = []
        if report.lifetime.source == .invalid {
            reasons.append(CacheReason(.invalidDirective, "invalid max-age, s-maxage or Expires: treated as stale"))
        }
        func mustValidate(_ reason: CacheReason) -> CacheDecision {
            reasons.append(reason)
            if cannotLoad {
                return .unsatisfiable(reasons + [CacheReason(.onlyIfCached, "the stored response needs validation")])
            }
            return validateOrFetch(index, stored, request, reasons)
        }
        if requestDirectives.contains(.noCache) || pragmaNoCache {
            let source = pragmaNoCache ? "Pragma: no-cache" : "Cache-Control: no-cache"
            return mustValidate(CacheReason(.requestNoCache, "the request says \(source)"))
        }
        if responseDirectives.contains(.noCache) {
            return mustValidate(CacheReason(.responseNoCache, "the stored response says no-cache"))
        }
        if report.isFresh {
            var acceptable = true
            let immutable = responseDirectives.contains(.immutable)
            if let maxAge = requestDirectives.seconds(.maxAge) {
                // An invalid request max-age is read as 0: the conservative choice is to validate.
                let limit = TimeInterval(maxAge.value ?? 0)
                if report.currentAge > limit {
                    if immutable {
                        reasons.append(CacheReason(.immutable, "fresh and immutable: the request's max-age is not applied"))
                    } else {
                        acceptable = false
                        reasons.append(CacheReason(.requestMaxAge, "age \(Int(report.currentAge))s exceeds the request's max-age=\(Int(limit))"))
                    }
                }
            }
            if let minFresh = requestDirectives.seconds(.minFresh)?.value,
                report.remainingFreshness < TimeInterval(minFresh)
            {
                acceptable = false
                reasons.append(CacheReason(.minFresh, "fresh for \(Int(report.remainingFreshness))s, less than min-fresh=\(minFresh)"))
            }
            if acceptable {
                return .useStored(index: index, report, reasons + [CacheReason(.fresh, describing: report)])
            }
            return mustValidate(CacheReason(.fresh, describing: report))
        }
        reasons.append(CacheReason(.stale, describing: report))
        if forbidsStaleUse(responseDirectives) {
            return mustValidate(CacheReason(.mustRevalidate, "the stored response may not be served stale"))
        }
        if let maxStale = requestDirectives.maxStale?.value, report.staleness <= TimeInterval(maxStale) {
            return .useStored(index: index, report, reasons + [
                CacheReason(.maxStale, "stale by \(Int(report.staleness))s, within the request's max-stale"),
            ])
        }
        if !cannotLoad, let window = responseDirectives.seconds(.staleWhileRevalidate)?.value,
            report.staleness <= TimeInterval(window)
        {
            return .useStoredAndRevalidate(
                index: index,
                conditional: conditionalRequest(for: request, validating: [stored[index]]),
                report,
                reasons + [CacheReason(.staleWhileRevalidate, "stale by \(Int(report.staleness))s, within stale-while-revalidate=\(window)")]
            )
        }
        if cannotLoad {
            return .unsatisfiable(reasons + [CacheReason(.onlyIfCached, "only-if-cached and the stored response is stale")])
        }
        return validateOrFetch(index, stored, request, reasons)
    }

    /// Validates the stored response when it has a validator, fetches otherwise.
    private func validateOrFetch(
        _ index: Int,
        _ stored: [StoredExchange],
        _ request: HTTPRequest,
        _ reasons: [CacheReason]
    ) -> CacheDecision {
        let fields = stored[index].response.headerFields
        guard fields[.eTag] != nil || fields[.lastModified] != nil else {
            return .fetch(reasons + [CacheReason(.noValidator, "the stored response has neither ETag nor Last-Modified")])
        }
        return .validate(
            indices: [index],
            conditional: conditionalRequest(for: request, validating: [stored[index]]),
            reasons
        )
    }
}
