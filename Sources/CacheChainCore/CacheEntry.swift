public import CacheChainPolicy
public import Foundation
public import HTTPTypes

/// One stored variant: what a ``CacheStorage`` backend keeps and returns.
///
/// Storage backends know keys and bytes, not HTTP: an entry is identified by its ``key`` plus its
/// ``variantKey``, and a backend keeps several variants per key (one per distinct `Vary` selection).
public struct CacheEntry: Sendable, Hashable, Codable {
    /// The primary key (method and normalized URI).
    public var key: CacheKey {
        get { fields.key }
        set { fields = Fields(key: newValue, variantKey: variantKey, request: request, cached: cached, storedAt: storedAt, exchange: exchange) }
    }
    /// The secondary key: the normalized values of the request fields the response's `Vary` names
    /// (empty when the response has no `Vary`). Storing an entry replaces the variant with the same value.
    public var variantKey: String {
        get { fields.variantKey }
        set { fields = Fields(key: key, variantKey: newValue, request: request, cached: cached, storedAt: storedAt, exchange: exchange) }
    }
    /// The request that produced the response (its fields are needed to match `Vary`).
    public var request: HTTPRequest {
        get { fields.request }
        set { fields = Fields(key: key, variantKey: variantKey, request: newValue, cached: cached, storedAt: storedAt) }
    }
    /// The cached response.
    public var cached: CachedResponse {
        get { fields.cached }
        set {
            // A new body under the same head (what a disk or encrypted lookup does to a memoized entry) keeps
            // the exchange and its parsed fields; comparing the heads is cheaper than parsing them again.
            let sameHead = newValue.response == cached.response && newValue.requestTime == cached.requestTime
                && newValue.responseTime == cached.responseTime
            fields = Fields(
                key: key, variantKey: variantKey, request: request, cached: newValue, storedAt: storedAt,
                exchange: sameHead ? exchange : nil
            )
        }
    }
    /// When the entry was written: what `removeCachedResponses(since:)` compares.
    public var storedAt: Date {
        get { fields.storedAt }
        set { fields = Fields(key: key, variantKey: variantKey, request: request, cached: cached, storedAt: newValue, exchange: exchange) }
    }

    /// The entry's values, immutable and shared between copies: a lookup hands out copies of stored entries
    /// (and the chain copies them again), and copying one reference is one retain where copying the values
    /// was a retain per string, field list, body and dictionary. Setting a property makes a new box.
    private final class Fields: Sendable {
        let key: CacheKey
        let variantKey: String
        let request: HTTPRequest
        let cached: CachedResponse
        let storedAt: Date
        /// The policy engine's view, made (and its head's freshness fields parsed) once per box, not per hit.
        let exchange: StoredExchange

        /// Makes a box; `exchange` is the exchange of an entry with the same request and head (made anew when `nil`).
        init(
            key: CacheKey,
            variantKey: String,
            request: HTTPRequest,
            cached: CachedResponse,
            storedAt: Date,
            exchange: StoredExchange? = nil
        ) {
            self.key = key
            self.variantKey = variantKey
            self.request = request
            self.cached = cached
            self.storedAt = storedAt
            self.exchange = exchange ?? StoredExchange(
                request: request,
                response: cached.response,
                requestTime: cached.requestTime,
                responseTime: cached.responseTime
            )
        }
    }

    private var fields: Fields

    /// Creates an entry, computing its ``variantKey`` from the response's `Vary` and the request.
    /// - Parameters:
    ///   - key: The primary key; by default the key of `request`.
    ///   - request: The request that produced the response.
    ///   - cached: The cached response.
    ///   - storedAt: When it was written; defaults to the response time.
    public init(key: CacheKey? = nil, request: HTTPRequest, cached: CachedResponse, storedAt: Date? = nil) {
        fields = Fields(
            key: key ?? CacheKey(request),
            variantKey: Self.variantKey(request: request, response: cached.response),
            request: request,
            cached: cached,
            storedAt: storedAt ?? cached.responseTime
        )
    }

    // MARK: - Equality, hashing and coding: by value, as if the properties were stored

    /// Whether every property is equal.
    public static func == (lhs: CacheEntry, rhs: CacheEntry) -> Bool {
        if lhs.fields === rhs.fields { return true }
        return lhs.key == rhs.key && lhs.variantKey == rhs.variantKey && lhs.request == rhs.request
            && lhs.cached == rhs.cached && lhs.storedAt == rhs.storedAt
    }

    /// Hashes every property.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(variantKey)
        hasher.combine(request)
        hasher.combine(cached)
        hasher.combine(storedAt)
    }

    private enum CodingKeys: String, CodingKey {
        case key, variantKey, request, cached, storedAt
    }

    /// Decodes the five properties (the stored ``variantKey`` is kept, not recomputed).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        fields = Fields(
            key: try container.decode(CacheKey.self, forKey: .key),
            variantKey: try container.decode(String.self, forKey: .variantKey),
            request: try container.decode(HTTPRequest.self, forKey: .request),
            cached: try container.decode(CachedResponse.self, forKey: .cached),
            storedAt: try container.decode(Date.self, forKey: .storedAt)
        )
    }

    /// Encodes the five properties under their names.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .key)
        try container.encode(variantKey, forKey: .variantKey)
        try container.encode(request, forKey: .request)
        try container.encode(cached, forKey: .cached)
        try container.encode(storedAt, forKey: .storedAt)
    }

    /// The number of bytes the entry costs a backend: body plus an estimate of its fields.
    public var cost: Int {
        var fieldBytes = 0
        for field in cached.response.headerFields { fieldBytes += field.name.rawName.utf8.count + field.value.utf8.count + 4 }
        for field in request.headerFields { fieldBytes += field.name.rawName.utf8.count + field.value.utf8.count + 4 }
        return cached.body.count + fieldBytes + key.stringValue.utf8.count + 64
    }

    /// The policy engine's view of the entry.
    public var exchange: StoredExchange { fields.exchange }

    /// Computes the secondary key: each field named by `Vary` (lowercased, sorted) with the request's
    /// whitespace-normalized values, e.g. `accept=text/html|accept-language=fr`.
    /// - Parameters:
    ///   - request: The request whose fields are selected.
    ///   - response: The response whose `Vary` names them.
    /// - Returns: The secondary key; empty when the response has no `Vary`, `*` for `Vary: *`.
    public static func variantKey(request: HTTPRequest, response: HTTPResponse) -> String {
        let names = response.headerFields[values: .vary]
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty }
        if names.isEmpty { return "" }
        if names.contains("*") { return "*" }
        return Set(names).sorted().map { name -> String in
            let value = HTTPField.Name(name).map { request.headerFields[values: $0] } ?? []
            let normalized = value.map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
            return "\(name)=\(normalized.joined(separator: ","))"
        }.joined(separator: "|")
    }
}
