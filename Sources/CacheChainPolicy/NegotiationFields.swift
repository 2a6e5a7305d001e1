public import HTTPTypes

/// The content-negotiation fields `Vary` understands (RFC 9110 §12.5): `Accept`, `Accept-Encoding` and
/// `Accept-Language`, compared as preferences rather than as text.
///
/// **Normalisation** (``normalized(_:field:)``, applied by ``VaryFields`` wherever it compares or keeps a value
/// of these fields — variant selection, the secondary key, the stored request):
/// - members are split at commas outside quoted strings, and parameters at `;`; spaces and tabs around members,
///   `;` and `=` are dropped; empty members are dropped;
/// - the item is lowercased (media ranges, codings and language ranges are case-insensitive), and so are
///   parameter names; other parameter values are kept as sent;
/// - the weight `q` is written in its shortest form (`q=0.50` → `q=0.5`, `q=0.000` → `q=0`) and `q=1` is
///   dropped (it is the default); a member with an invalid weight is kept as written;
/// - members are ordered by weight, highest first, and members of equal weight alphabetically: equal weights
///   are equal preferences (RFC 9110 §12.4.2), so their order does not choose a variant.
///
/// `fr-CH, fr;q=0.9, EN;Q=0.8` and `fr-ch,en;q=0.80 , fr;q=0.9` are one value, `fr-ch, fr;q=0.9, en;q=0.8`.
///
/// **Negotiation** (``isTopChoice(_:field:for:)``): a stored variant whose normalised field differs from the
/// new request's is still selected when its representation is among the new request's highest-weighted
/// choices — its `Content-Language` (one tag) among the top language ranges, its `Content-Type`'s media type
/// among the top media ranges, its `Content-Encoding` (`identity` when absent) among the top codings — since the
/// origin would answer that request with this representation too. A wildcard (`*`, `*/*`, `text/*`) or a range
/// with parameters never counts: the origin could choose differently.
public enum NegotiationFields {
    /// The fields normalised and negotiated, lowercased: `accept`, `accept-encoding`, `accept-language`.
    public static let names: Set<String> = ["accept", "accept-encoding", "accept-language"]

    /// A field's normalised value, as described in the type's documentation.
    /// - Parameters:
    ///   - value: The field's value, its lines already combined with `, `.
    ///   - field: The lowercased field name; a name outside ``names`` returns `value` unchanged.
    /// - Returns: The normalised value.
    public static func normalized(_ value: String, field: String) -> String {
        guard names.contains(field) else { return value }
        let members = CacheControl.splitOutsideQuotes(value).compactMap { Member(parsing: $0) }
        return members.sorted().map(\.text).joined(separator: ", ")
    }

    /// Whether a stored response's representation is among a request's highest-weighted choices for `field`.
    /// - Parameters:
    ///   - requestValue: The new request's value of the field (normalised or not); `nil` when absent.
    ///   - field: The lowercased field name.
    ///   - response: The stored response.
    /// - Returns: `true` when the origin would answer the request with this representation too.
    public static func isTopChoice(_ requestValue: String?, field: String, for response: HTTPResponse) -> Bool {
        guard names.contains(field), let requestValue, let offered = representation(field, of: response) else { return false }
        let members = CacheControl.splitOutsideQuotes(requestValue).compactMap { Member(parsing: $0) }
        guard let top = members.compactMap(\.weight).max(), top > 0 else { return false }
        return members.contains { member in
            member.weight == top && member.parameters.isEmpty && !member.item.contains("*") && member.item == offered
        }
    }

    /// What the response offers for a negotiated field, lowercased: one `Content-Language` tag, the
    /// `Content-Type` media type without parameters, or the `Content-Encoding` (`identity` when absent).
    private static func representation(_ field: String, of response: HTTPResponse) -> String? {
        let fields = response.headerFields
        switch field {
        case "accept-language":
            let tags = fields[values: .contentLanguage].flatMap { $0.split(separator: ",") }.map { $0.trimmingOWS().lowercased() }
            return tags.count == 1 ? tags.first : nil
        case "accept":
            return fields[.contentType].map { String($0.split(separator: ";").first ?? "").trimmingOWS().lowercased() }
        case "accept-encoding":
            let codings = fields[values: .contentEncoding].flatMap { $0.split(separator: ",") }.map { $0.trimmingOWS().lowercased() }
            return codings.isEmpty ? "identity" : (codings.count == 1 ? codings.first : nil)
        default:
            return nil
        }
    }

    /// One list member: its item, its other parameters and its weight.
    struct Member: Comparable {
        let item: String
        let parameters: [String]
        /// The weight in thousandths; `nil` when `q` is invalid.
        let weight: Int?
        let text: String

        init?(parsing member: Substring) {
            let parts = member.split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingOWS() }
            guard let first = parts.first, !first.isEmpty else { return nil }
            item = first.lowercased()
            var parameters: [String] = []
            var weight: Int? = 1000
            var invalidWeight: String?
            for part in parts.dropFirst() where !part.isEmpty {
                let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = pair[0].trimmingOWS().lowercased()
                let value = pair.count > 1 ? pair[1].trimmingOWS() : ""
                if name == "q" {
                    weight = Self.weight(value)
                    if weight == nil { invalidWeight = "q=\(value)" }
                } else {
                    parameters.append(pair.count > 1 ? "\(name)=\(value)" : name)
                }
            }
            self.parameters = parameters
            self.weight = weight
            var text = ([item] + parameters).joined(separator: ";")
            if let invalidWeight {
                text += ";" + invalidWeight
            } else if let weight, weight != 1000 {
                text += ";q=" + Self.format(weight)
            }
            self.text = text
        }

        /// RFC 9110 §12.4.2: `0` or `1`, then up to three decimals; `nil` otherwise.
        static func weight(_ text: String) -> Int? {
            let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            guard let whole = parts.first, whole == "0" || whole == "1" else { return nil }
            let fraction = parts.count > 1 ? parts[1] : ""
            guard fraction.count <= 3, fraction.allSatisfy({ $0 >= "0" && $0 <= "9" }) else { return nil }
            var thousandths = 0
            for (index, digit) in fraction.enumerated() {
                thousandths += (Int(String(digit)) ?? 0) * [100, 10, 1][index]
            }
            let value = (whole == "1" ? 1000 : 0) + thousandths
            return value <= 1000 ? value : nil
        }

        /// `500` → `0.5`, `0` → `0`, `1000` → `1`.
        static func format(_ thousandths: Int) -> String {
            if thousandths == 0 { return "0" }
            if thousandths == 1000 { return "1" }
            var digits = String(thousandths)
            while digits.count < 3 { digits = "0" + digits }
            while digits.hasSuffix("0") { digits.removeLast() }
            return "0." + digits
        }

        /// Higher weight first (an invalid one last), then alphabetically.
        static func < (lhs: Member, rhs: Member) -> Bool {
            let left = lhs.weight ?? -1
            let right = rhs.weight ?? -1
            return left != right ? left > right : lhs.text < rhs.text
        }
    }
}
