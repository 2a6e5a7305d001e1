public import CacheChainCore
public import HTTPTypes

/// Builds a `CacheKeyStrategy` that normalizes URLs before they become cache keys: drops tracking or
/// signing query parameters, optionally sorts the rest, and folds chosen request fields into the key.
///
/// Without it, `https://shop.example/item?id=7&utm_source=mail` and `…?id=7&utm_source=ad` are two
/// entries for one resource, and a pre-signed URL whose signature changes every minute never hits.
/// Lookup, store and invalidation all use the strategy, so they always agree.
///
/// ```swift
/// let keys = CacheKeyNormalization(
///     droppedParameterPrefixes: CacheKeyNormalization.trackingParameterPrefixes,
///     droppedParameters: ["X-Amz-Signature", "X-Amz-Date"],
///     includedFields: [.acceptLanguage]
/// )
/// let client = HTTPCacheClient(transport: CurlTransport(), configuration: .init(cacheKeyStrategy: keys.strategy))
/// ```
///
/// Only drop parameters that do not change the response: two URLs with the same key share one entry.
public struct CacheKeyNormalization: Sendable, Hashable {
    /// Query parameter names removed from the key (compared case-insensitively).
    public var droppedParameters: Set<String>
    /// Name prefixes of query parameters removed from the key (case-insensitive), e.g. `utm_`.
    public var droppedParameterPrefixes: [String]
    /// Whether the remaining parameters are sorted by name (stable for equal names), so that their order
    /// does not matter.
    public var sortsParameters: Bool
    /// Request fields whose values become part of the key (as `CacheKey.discriminator`), for APIs that
    /// vary on a field without saying so in `Vary`.
    public var includedFields: [HTTPField.Name]

    /// Prefixes of common marketing and click-tracking parameters: `utm_`, `fbclid`, `gclid`, `msclkid`,
    /// `mc_cid`, `mc_eid`, `_ga`, `yclid`.
    public static let trackingParameterPrefixes = ["utm_", "fbclid", "gclid", "msclkid", "mc_cid", "mc_eid", "_ga", "yclid"]

    /// Creates a normalization.
    /// - Parameters:
    ///   - droppedParameterPrefixes: Prefixes of parameters to drop; none by default.
    ///   - droppedParameters: Exact parameter names to drop; none by default.
    ///   - sortsParameters: Sort the remaining parameters; `true` by default.
    ///   - includedFields: Request fields folded into the key; none by default.
    public init(
        droppedParameterPrefixes: [String] = [],
        droppedParameters: Set<String> = [],
        sortsParameters: Bool = true,
        includedFields: [HTTPField.Name] = []
    ) {
        self.droppedParameterPrefixes = droppedParameterPrefixes.map { $0.lowercased() }
        self.droppedParameters = Set(droppedParameters.map { $0.lowercased() })
        self.sortsParameters = sortsParameters
        self.includedFields = includedFields
    }

    /// The strategy to put in the client's configuration.
    public var strategy: CacheKeyStrategy {
        CacheKeyStrategy { [self] request in key(for: request) }
    }

    /// The normalized key of a request.
    /// - Parameter request: The request.
    /// - Returns: Its key.
    public func key(for request: HTTPRequest) -> CacheKey {
        let standard = CacheKey(request)
        var discriminator = ""
        if !includedFields.isEmpty {
            discriminator = includedFields.map { name in
                let values = request.headerFields[values: name].map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
                return "\(name.canonicalName)=\(values.joined(separator: ","))"
            }.joined(separator: "|")
        }
        return CacheKey(
            method: standard.method,
            scheme: standard.scheme,
            authority: standard.authority,
            path: normalizedPath(standard.path),
            discriminator: discriminator
        )
    }

    /// The path with its query normalized: dropped parameters removed, the rest optionally sorted, and no
    /// trailing `?` when nothing is left. Parameters are compared by their raw (still percent-encoded) names.
    /// - Parameter path: Path and query.
    /// - Returns: The normalized path and query.
    public func normalizedPath(_ path: String) -> String {
        guard let question = path.firstIndex(of: "?") else { return path }
        let base = path[..<question]
        let query = path[path.index(after: question)...]
        var parameters = query.split(separator: "&", omittingEmptySubsequences: true).filter { parameter in
            let name = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first.map { $0.lowercased() } ?? ""
            if droppedParameters.contains(name) { return false }
            return !droppedParameterPrefixes.contains { name.hasPrefix($0) }
        }
        if sortsParameters {
            parameters = parameters.enumerated().sorted { left, right in
                let leftName = left.element.split(separator: "=", maxSplits: 1).first ?? ""
                let rightName = right.element.split(separator: "=", maxSplits: 1).first ?? ""
                return leftName == rightName ? left.offset < right.offset : leftName < rightName
            }.map(\.element)
        }
        return parameters.isEmpty ? String(base) : "\(base)?\(parameters.joined(separator: "&"))"
    }
}
