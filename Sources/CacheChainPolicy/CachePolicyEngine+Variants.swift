import FoundationEssentials
public import HTTPTypes

extension CachePolicyEngine {
    /// The stored response whose `Vary`-nominated request fields match the request (RFC 9111 §4.1).
    ///
    /// Field values are compared as ``VaryFields`` normalises them (lines combined, members trimmed; secret
    /// fields by their keyed digest under ``varyDigestKey``); a field absent from both requests matches.
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
        return best
    }

    /// Whether the stored request's fields named by the stored response's `Vary` match the new request's,
    /// as ``VaryFields`` normalises them (secret fields by their digest under ``varyDigestKey``).
    private func matchesVary(_ request: HTTPRequest, _ stored: StoredExchange) -> Bool {
        guard stored.response.headerFields.contains(.vary) else { return true }
        let names = VaryFields.names(in: stored.response)
        if names.contains("*") { return false }
        for name in names {
            guard HTTPField.Name(name) != nil else { return false }
            if VaryFields.comparableValue(of: name, in: request, key: varyDigestKey)
                != VaryFields.storedComparableValue(of: name, in: stored.request)
            {
                return false
            }
        }
        return true
    }
}
