import FoundationEssentials
public import HTTPTypes

extension CachePolicyEngine {
    /// The stored response whose `Vary`-nominated request fields match the request (RFC 9111 §4.1).
    ///
    /// Field values are compared as ``VaryFields`` normalises them (lines combined, members trimmed; `Accept`,
    /// `Accept-Encoding` and `Accept-Language` as preferences, ``NegotiationFields``; secret fields by their keyed
    /// digest under ``varyDigestKey``); a field absent from both requests matches. When no variant matches so, a
    /// variant whose differing negotiation fields the request would negotiate to (its `Content-Language`,
    /// `Content-Type` or `Content-Encoding` among the request's highest-weighted choices) is chosen.
    /// `Vary: *` never matches. When several match, the most
    /// recent (by `Date`, then by reception time) is chosen; of equally recent ones, the first in `stored`.
    /// - Parameters:
    ///   - request: The new request.
    ///   - stored: The stored exchanges under the request's cache key.
    /// - Returns: The index of the chosen exchange, or `nil`.
    public func selectVariant(for request: HTTPRequest, among stored: [StoredExchange]) -> Int? {
        variantSelectionObserver?()
        func recency(_ index: Int) -> (Date, Date) { (dateValue(of: stored[index]), stored[index].responseTime) }
        var best: Int?
        for index in stored.indices where matchesVary(request, stored[index]) {
            if let current = best, recency(index) <= recency(current) { continue }  // the first of equals stays
            best = index
        }
        if best != nil { return best }
        // No variant was stored for these exact preferences: one the request would negotiate to answers it too.
        for index in stored.indices where matchesVary(request, stored[index], negotiating: true) {
            if let current = best, recency(index) <= recency(current) { continue }
            best = index
        }
        return best
    }

    /// Whether the stored request's fields named by the stored response's `Vary` match the new request's,
    /// as ``VaryFields`` normalises them (secret fields by their digest under ``varyDigestKey``).
    /// With `negotiating`, a content-negotiation field that differs still matches when the stored response's
    /// representation is among the request's highest-weighted choices (``NegotiationFields/isTopChoice(_:field:for:)``).
    private func matchesVary(_ request: HTTPRequest, _ stored: StoredExchange, negotiating: Bool = false) -> Bool {
        guard stored.response.headerFields.contains(.vary) else { return true }
        let names = VaryFields.names(in: stored.response)
        if names.contains("*") { return false }
        var negotiated = false
        for name in names {
            guard HTTPField.Name(name) != nil else { return false }
            let value = VaryFields.comparableValue(of: name, in: request, key: varyDigestKey)
            guard value != VaryFields.storedComparableValue(of: name, in: stored.request) else { continue }
            guard negotiating, NegotiationFields.isTopChoice(value, field: name, for: stored.response) else { return false }
            negotiated = true
        }
        return !negotiating || negotiated
    }
}
