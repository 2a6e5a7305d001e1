public import HTTPTypes

/// How `Vary` compares request fields (RFC 9111 §4.1): the one normalisation used by the engine's variant
/// selection, by the secondary key stored with each entry and by what an entry keeps of its request.
///
/// A field's lines are combined into one list, split at commas, each member stripped of surrounding spaces
/// and tabs, and empty members dropped (RFC 9110 §5.6.1): `text/html,application/json`,
/// `text/html, application/json` and two lines `text/html` + `application/json` are one variant. A field
/// absent from a request matches only a request where it is absent too. `Accept`, `Accept-Encoding` and
/// `Accept-Language` are further normalised as preferences (case, weights, order of equal-weight members:
/// ``NegotiationFields``), and a stored variant may also be selected by negotiation (see
/// `CachePolicyEngine.selectVariant(for:among:)`).
///
/// The secret fields ``secretFieldNames`` (`Authorization`, `Proxy-Authorization`, `Cookie`) are never
/// kept or compared in clear: their normalised value is replaced by ``digest(of:field:key:)``, an
/// HMAC-SHA256 under the backend's ``VaryDigestKey``.
///
/// ```swift
/// let response = HTTPResponse(status: .ok, headerFields: [.vary: "Accept, Cookie"])
/// let kept = VaryFields.minimized(request, varyingOn: response, key: .perProcess)  // method, URL, Accept, a digest of Cookie
/// let variant = VaryFields.variantKey(of: request, varyNames: VaryFields.names(in: response), key: .perProcess)
/// ```
public enum VaryFields {
    /// The request fields that are never stored or compared in clear (lowercased).
    public static let secretFieldNames: Set<String> = ["authorization", "proxy-authorization", "cookie"]

    /// The prefix of a stored digest: `hmac-sha256:` followed by 64 hex digits.
    public static let digestPrefix = "hmac-sha256:"

    /// The field names a response's `Vary` lines list: lowercased, without duplicates, sorted; `["*"]` when
    /// one of them is `*`; empty without `Vary`.
    /// - Parameter response: The response.
    /// - Returns: The names.
    public static func names(in response: HTTPResponse) -> [String] {
        var names: Set<String> = []
        for line in response.headerFields[values: .vary] {
            for member in line.split(separator: ",") {
                let name = member.trimmingOWS().lowercased()
                if name == "*" { return ["*"] }
                if !name.isEmpty { names.insert(name) }
            }
        }
        return names.sorted()
    }

    /// The normalised value of a field's lines: members trimmed of spaces and tabs, empty ones dropped,
    /// joined by `, `.
    /// - Parameter lines: The field's lines, in order.
    /// - Returns: The value; `nil` when there are no lines (the field is absent).
    public static func normalized(_ lines: [String]) -> String? {
        guard !lines.isEmpty else { return nil }
        var members: [String] = []
        for line in lines {
            for member in line.split(separator: ",", omittingEmptySubsequences: false) {
                let trimmed = member.trimmingOWS()
                if !trimmed.isEmpty { members.append(trimmed) }
            }
        }
        return members.joined(separator: ", ")
    }

    /// The normalised value of a field's lines under its name: ``normalized(_:)``, then, for the
    /// content-negotiation fields (`Accept`, `Accept-Encoding`, `Accept-Language`), ``NegotiationFields``'
    /// normalisation (case, weights, order of equal-weight members).
    /// - Parameters:
    ///   - lines: The field's lines, in order.
    ///   - field: The lowercased field name.
    /// - Returns: The value; `nil` when there are no lines (the field is absent).
    public static func normalized(_ lines: [String], field: String) -> String? {
        normalized(lines).map { NegotiationFields.normalized($0, field: field) }
    }

    /// The keyed digest that stands for a secret field's normalised value.
    /// - Parameters:
    ///   - value: The normalised value.
    ///   - field: The lowercased field name (part of the digested bytes, so two fields never share a digest).
    ///   - key: The backend's key.
    /// - Returns: ``digestPrefix`` and 64 hex digits.
    public static func digest(of value: String, field: String, key: VaryDigestKey) -> String {
        let message = Array(field.utf8) + [0] + Array(value.utf8)
        return digestPrefix + SHA256.hex(SHA256.authenticationCode(key: key.bytes, message: message))
    }

    /// What a new request's field is compared as: its normalised value, or the digest of it for a secret field.
    /// - Parameters:
    ///   - name: The lowercased field name.
    ///   - request: The new request.
    ///   - key: The backend's key.
    /// - Returns: The comparable value; `nil` when the field is absent (or not a valid field name).
    public static func comparableValue(of name: String, in request: HTTPRequest, key: VaryDigestKey) -> String? {
        guard let fieldName = HTTPField.Name(name), let value = normalized(request.headerFields[values: fieldName], field: name) else {
            return nil
        }
        return secretFieldNames.contains(name) ? digest(of: value, field: name, key: key) : value
    }

    /// What a stored request's field is compared as: its normalised value. A secret field holds a digest,
    /// compared as it is; a secret field stored in clear (an entry made outside ``minimized(_:varyingOn:key:)``)
    /// never matches anything.
    /// - Parameters:
    ///   - name: The lowercased field name.
    ///   - request: The stored request.
    /// - Returns: The comparable value; `nil` when the field is absent.
    public static func storedComparableValue(of name: String, in request: HTTPRequest) -> String? {
        guard let fieldName = HTTPField.Name(name), let value = normalized(request.headerFields[values: fieldName], field: name) else {
            return nil
        }
        guard secretFieldNames.contains(name), !isDigest(value) else { return value }
        return digestPrefix + "unmatchable"
    }

    /// Whether a stored value is a digest made by ``digest(of:field:key:)``.
    /// - Parameter value: A stored field value.
    /// - Returns: Whether it has the digest's form.
    public static func isDigest(_ value: String) -> Bool {
        value.utf8.count == digestPrefix.utf8.count + 64 && value.hasPrefix(digestPrefix)
    }

    /// What an entry keeps of the request that produced it: method, scheme, authority and path, and only
    /// the fields the response's `Vary` names, normalised — a secret field as its digest. Every other field
    /// (`Authorization` and `Cookie` included, whatever `Vary` says) is dropped.
    /// - Parameters:
    ///   - request: The request.
    ///   - response: The response whose `Vary` names the kept fields.
    ///   - key: The backend's key for secret fields.
    /// - Returns: The minimised request.
    public static func minimized(_ request: HTTPRequest, varyingOn response: HTTPResponse, key: VaryDigestKey) -> HTTPRequest {
        minimized(request, varyingOn: response, key: key, keepingDigests: false)
    }

    /// ``minimized(_:varyingOn:key:)``; with `keepingDigests`, a secret field that already holds a digest (a
    /// stored request being edited) is kept as it is rather than digested again.
    package static func minimized(
        _ request: HTTPRequest,
        varyingOn response: HTTPResponse,
        key: VaryDigestKey,
        keepingDigests: Bool
    ) -> HTTPRequest {
        var kept = HTTPRequest(method: request.method, scheme: request.scheme, authority: request.authority, path: request.path)
        let names = names(in: response)
        guard names != ["*"] else { return kept }
        for name in names {
            guard let fieldName = HTTPField.Name(name) else { continue }
            let value: String?
            if keepingDigests, let stored = normalized(request.headerFields[values: fieldName]), isDigest(stored) {
                value = stored
            } else {
                value = comparableValue(of: name, in: request, key: key)
            }
            if let value { kept.headerFields.append(HTTPField(name: fieldName, value: value)) }
        }
        return kept
    }

    /// The secondary key of a request under a list of `Vary` names: `name=value` pairs joined by `|`, each
    /// value normalised (a secret field's as its digest), e.g. `accept=text/html|cookie=hmac-sha256:…`; a field
    /// absent from the request is its bare name.
    /// - Parameters:
    ///   - request: The request.
    ///   - varyNames: ``names(in:)`` of the response.
    ///   - key: The backend's key for secret fields.
    /// - Returns: The secondary key; empty without names, `*` for `Vary: *`.
    public static func variantKey(of request: HTTPRequest, varyNames: [String], key: VaryDigestKey) -> String {
        if varyNames.isEmpty { return "" }
        if varyNames == ["*"] { return "*" }
        return varyNames.map { name in
            comparableValue(of: name, in: request, key: key).map { "\(name)=\($0)" } ?? name
        }.joined(separator: "|")
    }
}
