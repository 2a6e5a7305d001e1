package import HTTPTypes

extension HTTPRequest {
    /// Rewrites the request target (path and query) to its RFC 3986 §6.2.2 normal form, the one form that the
    /// cache key, every rule, the transport and the trace then see: the client's front door
    /// (`HTTPCacheClient.send`) and every redirect hop call it once.
    ///
    /// Percent-encodings of unreserved characters are decoded, in either case (`%2e` and `%2E` → `.`,
    /// `%7e` → `~`), the others' hexadecimal digits uppercased (`%2f` → `%2F`); then the path's `.` and `..`
    /// segments are removed (RFC 3986 §5.2.4), so `/a/%2e%2e/b` and `/a/.%2E/b` become `/b`. Decoding is done
    /// once: `%252e` is the text `%2e`, not a dot, and stays `%252E`. A fragment is dropped (it is never sent)
    /// and an empty path becomes `/`. A target without `%`, `#` or dot segments is left as it is.
    ///
    /// Without it, a cache that keys on the normal form while the transport sends the raw target would store
    /// the origin's answer for `/up/%2e%2e/app.js` under `/app.js` and serve it to everyone asking for that.
    package mutating func normalizeTarget() {
        guard let path, path != "*" else { return }  // `OPTIONS *` and authority-form targets have no path to normalise
        let normalized = Self.normalizedTarget(path)
        if normalized != path { self.path = normalized }
    }

    /// A target in normal form (see ``normalizeTarget()``).
    /// - Parameter target: A path with an optional query and fragment.
    /// - Returns: The normalised target, `/` for one that normalises to nothing.
    package static func normalizedTarget(_ target: String) -> String {
        var target = target
        if target.utf8.contains(UInt8(ascii: "#")), let hash = target.firstIndex(of: "#") { target = String(target[..<hash]) }
        return target.isEmpty ? "/" : URIPathNormalization.normalized(target)
    }
}
