public import FoundationEssentials
public import HTTPTypes

extension CachePolicyEngine {
    /// The head to send when serving a stored response: the stored head with `Age` set to the current
    /// age in whole seconds (RFC 9111 §5.1).
    /// - Parameters:
    ///   - stored: The stored exchange.
    ///   - now: The current time.
    /// - Returns: The head to serve.
    public func responseForServing(_ stored: StoredExchange, now: Date) -> HTTPResponse {
        responseForServing(stored, currentAge: currentAge(of: stored, now: now))
    }

    /// The head to send when serving a stored response whose current age is already known (the
    /// ``FreshnessReport/currentAge`` of the decision that chose it): the stored head with `Age` set to it
    /// in whole seconds, clamped to 2147483648 (RFC 9111 §5.1), without computing the age again.
    /// - Parameters:
    ///   - stored: The stored exchange.
    ///   - currentAge: Its current age in seconds.
    /// - Returns: The head to serve.
    public func responseForServing(_ stored: StoredExchange, currentAge: TimeInterval) -> HTTPResponse {
        var head = stored.response
        let age = min(max(0, currentAge), TimeInterval(DeltaSeconds.maximum))
        let value = String(Int(age.rounded(.down)))
        if head.headerFields.contains(.age) {
            head.headerFields[.age] = value
        } else {
            // The usual case (an origin rarely sends Age): appending skips the subscript's search-and-replace.
            head.headerFields.append(HTTPField(name: .age, value: value))
        }
        return head
    }

    /// Whether a stale stored response may be served because the origin failed (RFC 5861 §4,
    /// RFC 9111 §4.2.4).
    ///
    /// Needs `stale-if-error` in the response or the request covering the current staleness, and no
    /// `must-revalidate` (or shared-cache `proxy-revalidate`/`s-maxage`) or `no-cache` in the response.
    /// - Parameters:
    ///   - stored: The stored exchange.
    ///   - request: The request being answered.
    ///   - now: The current time.
    /// - Returns: `true` if the stored response may stand in for the failed fetch.
    public func canServeStaleOnError(_ stored: StoredExchange, request: HTTPRequest, now: Date) -> Bool {
        let directives = governingDirectives(of: stored).directives
        guard !forbidsStaleUse(directives), !directives.contains(.noCache) else { return false }
        let requestDirectives = CacheControl(request.headerFields)
        let allowances = [directives.seconds(.staleIfError)?.value, requestDirectives.seconds(.staleIfError)?.value]
            .compactMap { $0 }
        guard let allowance = allowances.max() else { return false }
        return freshness(of: stored, now: now).staleness <= TimeInterval(allowance)
    }

    /// Whether a stored response may be served, stale, because the origin could not be reached at all
    /// (RFC 9111 §4.2.4: a cache that is disconnected may serve stale responses unless a directive forbids it).
    ///
    /// Needs ``CachePolicyConfiguration/servesStaleWhenOriginUnreachable``; refused when the response says
    /// `must-revalidate` or `no-cache` (in a shared cache also `proxy-revalidate` or `s-maxage`), and when the
    /// request says `no-cache` (or `Pragma: no-cache`): that request asked for the origin's answer.
    /// - Parameters:
    ///   - stored: The stored exchange.
    ///   - request: The request being answered.
    /// - Returns: `true` if the stored response may stand in for the unreachable origin.
    public func canServeStaleWhenOriginUnreachable(_ stored: StoredExchange, request: HTTPRequest) -> Bool {
        guard configuration.servesStaleWhenOriginUnreachable else { return false }
        let directives = governingDirectives(of: stored).directives
        guard !forbidsStaleUse(directives), !directives.contains(.noCache) else { return false }
        let (requestDirectives, pragmaNoCache) = requestDirectives(request)
        return !requestDirectives.contains(.noCache) && !pragmaNoCache
    }

    /// Evaluates the application's own `If-None-Match` / `If-Modified-Since` against the response the cache
    /// is about to serve (RFC 9110 §13.1.2, §13.1.3, precedence §13.2.2).
    ///
    /// `If-None-Match` wins when present (`*` or a weakly matching tag → 304); otherwise `If-Modified-Since`
    /// is compared with `Last-Modified` (or `Date`). Only `GET`/`HEAD` and 2xx responses are evaluated.
    /// - Parameters:
    ///   - request: The application's request.
    ///   - servedResponse: The response head the cache would serve.
    /// - Returns: A `304 Not Modified` head carrying the fields RFC 9110 §15.4.5 requires, or `nil` when
    ///   the full response must be sent.
    public func evaluateConditional(request: HTTPRequest, servedResponse: HTTPResponse) -> HTTPResponse? {
        guard request.method == .get || request.method == .head,
            (200..<300).contains(servedResponse.status.code)
        else { return nil }
        let fields = servedResponse.headerFields
        let noneMatch = request.headerFields[values: .ifNoneMatch]
        if !noneMatch.isEmpty {
            let matches: Bool
            if noneMatch.contains(where: { $0.trimmingOWS() == "*" }) {
                matches = true
            } else if let text = fields[.eTag], let current = EntityTag(parsing: text) {
                matches = noneMatch.flatMap { EntityTag.parseList($0) }.contains { $0.weakMatches(current) }
            } else {
                matches = false
            }
            return matches ? notModified(from: servedResponse) : nil
        }
        guard let sinceText = request.headerFields[.ifModifiedSince], let since = HTTPDate.parse(sinceText),
            let modified = (fields[.lastModified] ?? fields[.date]).flatMap(HTTPDate.parse),
            modified <= since
        else { return nil }
        return notModified(from: servedResponse)
    }

    private func notModified(from response: HTTPResponse) -> HTTPResponse {
        var fields = HTTPFields()
        let kept: [HTTPField.Name] = [.cacheControl, .contentLocation, .date, .eTag, .expires, .vary, .lastModified, .age]
        for name in kept {
            let values = response.headerFields[values: name]
            if !values.isEmpty { fields[values: name] = values }
        }
        return HTTPResponse(status: .notModified, headerFields: fields)
    }
}
