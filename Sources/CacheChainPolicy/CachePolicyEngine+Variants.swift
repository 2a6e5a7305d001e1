public import HTTPTypes

extension CachePolicyEngine {
    /// The stored response whose `Vary`-nominated request fields match the request (RFC 9111 §4.1).
    ///
    /// Field values are compared after combining field lines and normalizing whitespace around commas; a
    /// field absent from both requests matches. `Vary: *` never matches. When several match, the most
    /// recent (by `Date`, then by reception time) is chosen.
    /// - Parameters:
    ///   - request: The new request.
    ///   - stored: The stored exchanges under the request's cache key.
    /// - Returns: The index of the chosen exchange, or `nil`.
    public func selectVariant(for request: HTTPRequest, among stored: [StoredExchange]) -> Int? {
        var best: Int?
        for (index, candidate) in stored.enumerated() where matchesVary(request, candidate) {
            guard let current = best else {
                best = index
                continue
            }
            let candidateDate = dateValue(of: candidate)
            let currentDate = dateValue(of: stored[current])
            if candidateDate > currentDate
                || (candidateDate == currentDate && candidate.responseTime > stored[current].responseTime)
            {
                best = index
            }
        }
        return best
    }

    /// The lowercased field names listed in a response's `Vary` lines.
    static func varyNames(_ response: HTTPResponse) -> [String] {
        response.headerFields[values: .vary]
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingOWS().lowercased() }
            .filter { !$0.isEmpty }
    }

    private func matchesVary(_ request: HTTPRequest, _ stored: StoredExchange) -> Bool {
        guard stored.response.headerFields.contains(.vary) else { return true }
        let names = Self.varyNames(stored.response)
        if names.contains("*") { return false }
        for name in names {
            guard let fieldName = HTTPField.Name(name) else { return false }
            if Self.normalized(request.headerFields[values: fieldName])
                != Self.normalized(stored.request.headerFields[values: fieldName])
            {
                return false
            }
        }
        return true
    }

    /// Field lines combined into one list with whitespace around members removed.
    static func normalized(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }.map { $0.trimmingOWS() }
    }
}
