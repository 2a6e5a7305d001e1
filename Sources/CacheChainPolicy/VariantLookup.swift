public import HTTPTypes

/// Which stored variants of a key may answer a request, decided from the `Vary` specs stored for the key: what a
/// backend that indexes variants by their secondary key (`DiskStorage`) looks up instead of reading every
/// variant. The policy engine owns this (issue 42: storage does not select variants); the backend only runs the
/// lookups it names, and the engine then selects among what they return (`CachePolicyEngine.selectVariant`).
///
/// For each distinct stored spec (a comma-separated list of lowercased field names, `VaryFields.names(in:)`
/// joined) the request's secondary key under that spec is a candidate; a response without `Vary` has the empty
/// key. When none of those keys is stored and a spec names a content-negotiation field (`NegotiationFields`), a
/// stored variant may still be selected by negotiation, so every variant is wanted (``everyVariantWhenNoneFound``).
///
/// ```swift
/// let request = HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/", headerFields: [.acceptLanguage: "fr"])
/// let lookup = VariantLookup(for: request, storedVarySpecs: ["accept-language"], key: .perProcess)
/// assert(lookup.variantKeys == ["", "accept-language=fr"] && lookup.everyVariantWhenNoneFound)
/// ```
public struct VariantLookup: Sendable, Equatable {
    /// The secondary keys to look up, the empty key (no `Vary`) first, each once.
    public let variantKeys: [String]
    /// Whether every variant is wanted when none of ``variantKeys`` is stored: a spec names a negotiated field.
    public let everyVariantWhenNoneFound: Bool

    /// The lookup for a request.
    /// - Parameters:
    ///   - request: The request to answer.
    ///   - storedVarySpecs: The distinct `Vary` specs stored for the key (comma-separated lowercased names).
    ///   - key: The key that digests secret fields in secondary keys (`VaryDigestKey`), as the entries were stored with.
    public init(for request: HTTPRequest, storedVarySpecs: [String], key: VaryDigestKey) {
        var variantKeys = [""]
        var negotiates = false
        for spec in storedVarySpecs {
            let names = spec.split(separator: ",").map(String.init)
            negotiates = negotiates || names.contains { NegotiationFields.names.contains($0) }
            let variant = VaryFields.variantKey(of: request, varyNames: names, key: key)
            if !variantKeys.contains(variant) { variantKeys.append(variant) }
        }
        self.variantKeys = variantKeys
        everyVariantWhenNoneFound = negotiates
    }
}
