public import HTTPTypes

extension CachePolicyEngine {
    /// The cache directives that govern a response in this cache, and the targeted field they come from
    /// (RFC 9213 §2.1).
    ///
    /// In a shared cache, the first field of ``CachePolicyConfiguration/targetedCacheControlFields`` that the
    /// response carries with a valid, non-empty Structured Field Dictionary: its members are the directives,
    /// and the response's `Cache-Control` and `Expires` are ignored. Otherwise (a private cache, no such field,
    /// or only empty or unparseable ones) the response's `Cache-Control`, with `targetedField` `nil`.
    /// - Parameter response: A response head.
    /// - Returns: The directives, and the name of the targeted field that supplied them (or `nil`).
    public func governingDirectives(of response: HTTPResponse) -> (directives: CacheControl, targetedField: HTTPField.Name?) {
        if let targeted = targetedDirectives(in: response.headerFields) { return targeted }
        return (CacheControl(response.headerFields), nil)
    }

    /// ``governingDirectives(of:)`` for a stored exchange: its `Cache-Control` is already parsed.
    func governingDirectives(of stored: StoredExchange) -> (directives: CacheControl, targetedField: HTTPField.Name?) {
        if let targeted = targetedDirectives(in: stored.response.headerFields) { return targeted }
        return (stored.facts.directives, nil)
    }

    /// The first targeted field with a valid, non-empty value, parsed; `nil` in a private cache (RFC 9213
    /// targets are caches that opt in: a private cache is not a CDN, nor the operator's own shared cache).
    private func targetedDirectives(in fields: HTTPFields) -> (directives: CacheControl, targetedField: HTTPField.Name?)? {
        guard isShared else { return nil }
        for name in configuration.targetedCacheControlFields {
            let lines = fields[values: name]
            guard !lines.isEmpty, let directives = StructuredDictionary.directives(lines: lines), !directives.isEmpty else {
                continue  // absent, empty or invalid: ignored as if absent (§2.1, §2.2)
            }
            return (CacheControl(directives: directives), name)
        }
        return nil
    }
}
