public import CacheChainPolicy
public import Foundation
public import HTTPTypes

/// One stored variant: what a ``CacheStorage`` backend keeps and returns.
///
/// Storage backends know keys and bytes, not HTTP: an entry is identified by its ``key`` plus its
/// ``variantKey``, and a backend keeps several variants per key (one per distinct `Vary` selection).
public struct CacheEntry: Sendable, Hashable, Codable {
    /// The primary key (method and normalized URI).
    public var key: CacheKey
    /// The secondary key: the normalized values of the request fields the response's `Vary` names
    /// (empty when the response has no `Vary`). Storing an entry replaces the variant with the same value.
    public var variantKey: String
    /// The request that produced the response (its fields are needed to match `Vary`).
    public var request: HTTPRequest
    /// The cached response.
    public var cached: CachedResponse
    /// When the entry was written: what `removeCachedResponses(since:)` compares.
    public var storedAt: Date

    /// Creates an entry, computing its ``variantKey`` from the response's `Vary` and the request.
    /// - Parameters:
    ///   - key: The primary key; by default the key of `request`.
    ///   - request: The request that produced the response.
    ///   - cached: The cached response.
    ///   - storedAt: When it was written; defaults to the response time.
    public init(key: CacheKey? = nil, request: HTTPRequest, cached: CachedResponse, storedAt: Date? = nil) {
        self.key = key ?? CacheKey(request)
        self.request = request
        self.cached = cached
        self.storedAt = storedAt ?? cached.responseTime
        self.variantKey = Self.variantKey(request: request, response: cached.response)
    }

    /// The number of bytes the entry costs a backend: body plus an estimate of its fields.
    public var cost: Int {
        var fieldBytes = 0
        for field in cached.response.headerFields { fieldBytes += field.name.rawName.utf8.count + field.value.utf8.count + 4 }
        for field in request.headerFields { fieldBytes += field.name.rawName.utf8.count + field.value.utf8.count + 4 }
        return cached.body.count + fieldBytes + key.stringValue.utf8.count + 64
    }

    /// The policy engine's view of the entry.
    public var exchange: StoredExchange {
        StoredExchange(
            request: request,
            response: cached.response,
            requestTime: cached.requestTime,
            responseTime: cached.responseTime
        )
    }

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
