import CacheChainCore
import CacheChainPolicy
import HTTPTypes

/// A policy-override rule's response side, as the storage decision applies it and as a hit reports it.
///
/// What RFC 9111 forbids a shared cache stays forbidden in both modes: a rule never adds `public` or `s-maxage` and
/// never removes `private`, `no-store` or `no-cache`; a lifetime is given only to responses to `GET` and `HEAD` whose
/// status is cacheable by default and not an error (`200`, `203`, `204`, `206`, `300`, `301`, `308`; never a `4xx`
/// or `5xx` page, nor a `201`) and to the `304`s that freshen them.
extension CachePlan.ResponseOverride {
    /// The statuses a rule's lifetime applies to: cacheable by default and not an error, and `304`.
    static func givesLifetime(toStatus status: Int) -> Bool {
        status == 304 || (status < 400 && CachePolicyEngine.heuristicallyCacheableStatuses.contains(status))
    }

    /// A network response's fields with the rule's `Cache-Control` changes, and the trace reason for a lifetime it
    /// gave (`nil` when it gave none).
    /// - Parameters:
    ///   - fields: The response's fields.
    ///   - method: The request's method.
    ///   - status: The response's status code.
    func rewritten(_ fields: HTTPFields, method: HTTPRequest.Method, status: Int) -> (HTTPFields, CacheReason?) {
        var fields = fields
        if isNeverCache {
            fields[.cacheControl] = CacheControlList.appending("no-store", to: fields[.cacheControl])
            return (fields, nil)
        }
        guard let freshness, method == .get || method == .head, Self.givesLifetime(toStatus: status) else { return (fields, nil) }
        let control = fields[.cacheControl]
        switch freshness {
        case .whenAbsent(let lifetime):
            let hasLifetime = CacheControlList.names(in: control).contains { $0 == "max-age" || $0 == "s-maxage" }
                || fields[.expires] != nil
            guard !hasLifetime else { return (fields, nil) }
            let seconds = Int(lifetime.housekeepingSeconds)
            fields[.cacheControl] = CacheControlList.appending("max-age=\(seconds)", to: control)
            return (fields, reason(seconds: seconds, replacing: false))
        case .always(let lifetime):
            let seconds = Int(lifetime.housekeepingSeconds)
            let kept = CacheControlList.removing(["max-age", "s-maxage"], from: control)
            fields[.cacheControl] = CacheControlList.appending("max-age=\(seconds)", to: kept)
            fields[.expires] = nil
            return (fields, reason(seconds: seconds, replacing: true))
        }
    }

    /// The trace reason of a stored response whose lifetime this rule gave: its lifetime is the rule's `max-age`
    /// alone (an origin's own identical `max-age` is indistinguishable, and has the same effect).
    /// - Parameter stored: The stored response.
    func reasonForStored(_ stored: HTTPResponse) -> CacheReason? {
        guard let freshness, Self.givesLifetime(toStatus: stored.status.code) else { return nil }
        let control = CacheControl(stored.headerFields)
        switch freshness {
        case .whenAbsent(let lifetime):
            let seconds = Int(lifetime.housekeepingSeconds)
            guard control.seconds("max-age")?.value == seconds, !control.contains("s-maxage"), stored.headerFields[.expires] == nil
            else { return nil }
            return reason(seconds: seconds, replacing: false)
        case .always(let lifetime):
            let seconds = Int(lifetime.housekeepingSeconds)
            guard control.seconds("max-age")?.value == seconds else { return nil }
            return reason(seconds: seconds, replacing: true)
        }
    }

    private func reason(seconds: Int, replacing: Bool) -> CacheReason {
        let why = replacing ? "replacing the origin's lifetime" : "the origin gave no lifetime"
        return CacheReason(.policyOverride, "rule '\(ruleName)': max-age=\(seconds) (\(why))")
    }
}
