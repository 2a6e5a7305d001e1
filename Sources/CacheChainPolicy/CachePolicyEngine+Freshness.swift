public import FoundationEssentials
import HTTPTypes

extension CachePolicyEngine {
    /// The freshness lifetime of a stored response (RFC 9111 §4.2.1, §4.2.2).
    ///
    /// In order: `s-maxage` (shared caches), `max-age`, `Expires − Date`, then the heuristic
    /// (``CachePolicyConfiguration/heuristicFraction`` of `Date − Last-Modified`, capped) for statuses that
    /// are cacheable by default or marked `public`. An invalid `max-age`/`s-maxage` (negative, not a
    /// number, conflicting duplicates), several different `Expires` values or an unparseable `Expires`
    /// give lifetime 0 with source ``FreshnessLifetime/Source/invalid``: stale (§4.2.1, §5.3).
    /// - Parameter stored: The stored exchange.
    /// - Returns: The lifetime and its source.
    public func freshnessLifetime(of stored: StoredExchange) -> FreshnessLifetime {
        let (directives, targeted) = governingDirectives(of: stored)
        let fields = stored.response.headerFields
        if isShared, let shared = directives.seconds(.sMaxAge) {
            return lifetime(from: shared, source: .sharedMaxAge)
        }
        if let maxAge = directives.seconds(.maxAge) {
            return lifetime(from: maxAge, source: .maxAge)
        }
        let expiresValues = targeted == nil ? fields[values: .expires] : []  // RFC 9213 §2.1: ignored then
        if let first = expiresValues.first {
            guard expiresValues.allSatisfy({ $0 == first }), let expires = HTTPDate.parse(first) else {
                return FreshnessLifetime(seconds: 0, source: .invalid)
            }
            return FreshnessLifetime(seconds: max(0, expires.timeIntervalSince(dateValue(of: stored))), source: .expires)
        }
        let status = stored.response.status.code
        if Self.heuristicallyCacheableStatuses.contains(status) || directives.contains(.public),
            let lastModifiedText = fields[.lastModified], let lastModified = HTTPDate.parse(lastModifiedText)
        {
            let sinceModified = max(0, dateValue(of: stored).timeIntervalSince(lastModified))
            let seconds = min(sinceModified * configuration.heuristicFraction, configuration.maximumHeuristicLifetime)
            return FreshnessLifetime(seconds: seconds, source: .heuristic)
        }
        return FreshnessLifetime(seconds: 0, source: .none)
    }

    /// The current age of a stored response (RFC 9111 §4.2.3):
    /// `max(apparent_age, Age + response_delay) + resident_time`.
    ///
    /// An invalid `Age` is ignored; a huge one is clamped to 2147483648 seconds.
    /// - Parameters:
    ///   - stored: The stored exchange.
    ///   - now: The current time.
    /// - Returns: The age in seconds, never negative.
    public func currentAge(of stored: StoredExchange, now: Date) -> TimeInterval {
        let apparentAge = max(0, stored.responseTime.timeIntervalSince(dateValue(of: stored)))
        let responseDelay = max(0, stored.responseTime.timeIntervalSince(stored.requestTime))
        let ageValue = stored.facts.age ?? 0
        let correctedInitialAge = max(apparentAge, TimeInterval(ageValue) + responseDelay)
        let residentTime = max(0, now.timeIntervalSince(stored.responseTime))
        return correctedInitialAge + residentTime
    }

    /// Freshness lifetime and current age together.
    /// - Parameters:
    ///   - stored: The stored exchange.
    ///   - now: The current time.
    /// - Returns: The report.
    public func freshness(of stored: StoredExchange, now: Date) -> FreshnessReport {
        FreshnessReport(lifetime: freshnessLifetime(of: stored), currentAge: currentAge(of: stored, now: now))
    }

    /// The response's `Date`, or the time it was received when `Date` is missing or invalid
    /// (RFC 9110 §6.6.1: a recipient with a clock supplies one).
    func dateValue(of stored: StoredExchange) -> Date {
        stored.facts.date ?? stored.responseTime
    }

    private func lifetime(from value: DeltaSeconds, source: FreshnessLifetime.Source) -> FreshnessLifetime {
        switch value {
        case .seconds(let seconds): FreshnessLifetime(seconds: TimeInterval(seconds), source: source)
        case .invalid: FreshnessLifetime(seconds: 0, source: .invalid)
        }
    }
}
