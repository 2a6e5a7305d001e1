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
        get { box.values.key }
        set { update(keepingExchange: true) { $0.key = newValue } }
    }
    /// The secondary key: the normalized values of the request fields the response's `Vary` names
    /// (`VaryFields.variantKey(of:varyNames:key:)`; empty when the response has no `Vary`, secret fields as
    /// keyed digests). Storing an entry replaces the variant with the same value.
    public var variantKey: String {
        get { box.values.variantKey }
        set { update(keepingExchange: true) { $0.variantKey = newValue } }
    }
    /// What the entry keeps of the request that produced the response: method, scheme, authority, path and
    /// the fields the response's `Vary` names (`VaryFields.minimized(_:varyingOn:key:)`), never
    /// `Authorization`, `Proxy-Authorization` or `Cookie` in clear.
    ///
    /// Setting it keeps only those parts of the new request, the secret fields digested under the process's
    /// key (`VaryDigestKey.perProcess`) unless they already hold a digest.
    public var request: HTTPRequest {
        get { box.values.request }
        set {
            update(keepingExchange: false) { values in
                values.request = VaryFields.minimized(
                    newValue, varyingOn: values.cached.response, key: .perProcess, keepingDigests: true
                )
            }
        }
    }
    /// The cached response.
    public var cached: CachedResponse {
        get {
            var cached = box.values.cached
            cached.body = body
            return cached
        }
        set {
            var head = newValue
            head.body = .empty
            body = newValue.body
            let kept = box.values.cached
            guard head != kept else { return }  // only the body changed: the box is still right
            // A new head with the same request and response (user info, storage policy) keeps the exchange
            // and its parsed fields; comparing the heads is cheaper than parsing them again.
            let sameExchange = head.response == kept.response && head.requestTime == kept.requestTime
                && head.responseTime == kept.responseTime
            update(keepingExchange: sameExchange) { $0.cached = head }
        }
    }
    /// When the entry was written: what `removeCachedResponses(since:)` compares.
    public var storedAt: Date {
        get { box.values.storedAt }
        set { update(keepingExchange: true) { $0.storedAt = newValue } }
    }

    /// Replaces the body and keeps everything else, including the policy engine's view of the head: what a
    /// backend does when it attaches the bytes it read to a decoded (or remembered) entry. Cheaper than
    /// setting ``cached``, which compares the heads to find out whether the box can be kept.
    /// - Parameter body: The new body.
    package mutating func replaceBody(with body: PipelineBody) {
        self.body = body
    }

    /// The entry's properties except the body (`cached.body` is always empty here): with ``body``, their
    /// equality, hashing and coding are the entry's.
    private struct Values: Sendable, Hashable, Codable {
        var key: CacheKey
        var variantKey: String
        var request: HTTPRequest
        var cached: CachedResponse
        var storedAt: Date
    }

    /// The values, immutable and shared between copies: a lookup hands out copies of stored entries (and
    /// the chain copies them again), and copying one reference is one retain where copying the values was a
    /// retain per string, field list and dictionary. Setting a property other than the body makes a new box.
    private final class Box: Sendable {
        let values: Values
        /// The policy engine's view, made (and its head's freshness fields parsed) once per box, not per hit.
        let exchange: StoredExchange

        /// Makes a box; `exchange` is the exchange of an entry with the same request and head (made anew when `nil`).
        init(_ values: Values, exchange: StoredExchange? = nil) {
            self.values = values
            self.exchange = exchange ?? StoredExchange(
                request: values.request,
                response: values.cached.response,
                requestTime: values.cached.requestTime,
                responseTime: values.cached.responseTime
            )
        }
    }

    private var box: Box
    /// The body, beside the box: attaching the bytes a backend read to a remembered entry is one assignment,
    /// not a new box.
    private var body: PipelineBody

    /// Replaces the box with one holding the changed values; the exchange is kept when the change leaves
    /// the request and the response head as they were.
    private mutating func update(keepingExchange: Bool, _ change: (inout Values) -> Void) {
        var values = box.values
        change(&values)
        box = Box(values, exchange: keepingExchange ? box.exchange : nil)
    }

    /// Creates an entry from an exchange: computes its ``variantKey`` from the response's `Vary` and the
    /// request, and keeps only what answering needs of the request (``request``): secret fields never
    /// reach a backend in clear, whatever `Vary` says.
    /// - Parameters:
    ///   - key: The primary key; by default the key of `request`.
    ///   - request: The request that produced the response.
    ///   - cached: The cached response.
    ///   - storedAt: When it was written; defaults to the response time.
    ///   - varyDigestKey: The key that digests secret fields named by `Vary`: the backend's
    ///     ``CacheStorage/varyDigestKey(for:)`` (the built-in interceptors pass it); the process's by default.
    public init(
        key: CacheKey? = nil,
        request: HTTPRequest,
        cached: CachedResponse,
        storedAt: Date? = nil,
        varyDigestKey: VaryDigestKey = .perProcess
    ) {
        var head = cached
        head.body = .empty
        let names = VaryFields.names(in: cached.response)
        let kept = names.isEmpty && request.headerFields.isEmpty
            ? request : VaryFields.minimized(request, varyingOn: cached.response, key: varyDigestKey)
        box = Box(Values(
            key: key ?? CacheKey(request),
            variantKey: VaryFields.variantKey(of: request, varyNames: names, key: varyDigestKey),
            request: kept,
            cached: head,
            storedAt: storedAt ?? cached.responseTime
        ))
        body = cached.body
    }

    /// Restores a stored entry exactly as it was written (a backend's decoder): the request and the
    /// variant key are taken as they are, nothing is recomputed.
    /// - Parameters:
    ///   - key: The primary key.
    ///   - variantKey: The stored secondary key.
    ///   - request: The stored (already minimised) request.
    ///   - cached: The cached response.
    ///   - storedAt: When it was written.
    package init(restoringKey key: CacheKey, variantKey: String, request: HTTPRequest, cached: CachedResponse, storedAt: Date) {
        var head = cached
        head.body = .empty
        box = Box(Values(key: key, variantKey: variantKey, request: request, cached: head, storedAt: storedAt))
        body = cached.body
    }

    // MARK: - Equality, hashing and coding: those of the values

    /// Whether every property is equal.
    public static func == (lhs: CacheEntry, rhs: CacheEntry) -> Bool {
        (lhs.box === rhs.box || lhs.box.values == rhs.box.values) && lhs.body == rhs.body
    }

    /// Hashes every property.
    public func hash(into hasher: inout Hasher) {
        box.values.hash(into: &hasher)
        body.hash(into: &hasher)
    }

    /// Decodes the five properties (the stored ``variantKey`` is kept, not recomputed).
    public init(from decoder: any Decoder) throws {
        var values = try Values(from: decoder)
        body = values.cached.body
        values.cached.body = .empty
        box = Box(values)
    }

    /// Encodes the five properties under their names.
    public func encode(to encoder: any Encoder) throws {
        var values = box.values
        values.cached.body = body
        try values.encode(to: encoder)
    }

    /// The number of bytes the entry costs a backend: body plus an estimate of its fields.
    public var cost: Int {
        func fieldBytes(_ fields: HTTPFields) -> Int { fields.reduce(0) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count + 4 } }
        return body.count + fieldBytes(box.values.cached.response.headerFields) + fieldBytes(box.values.request.headerFields)
            + key.stringValue.utf8.count + 64
    }

    /// The policy engine's view of the entry.
    public var exchange: StoredExchange { box.exchange }

    /// Computes the secondary key: each field named by `Vary` (lowercased, sorted) with the request's value
    /// as `VaryFields` normalises it, e.g. `accept=text/html, application/json|accept-language=fr`; secret
    /// fields as their digest under `varyDigestKey`.
    /// - Parameters:
    ///   - request: The request whose fields are selected.
    ///   - response: The response whose `Vary` names them.
    ///   - varyDigestKey: The key of secret fields' digests; the process's by default.
    /// - Returns: The secondary key; empty when the response has no `Vary`, `*` for `Vary: *`.
    public static func variantKey(
        request: HTTPRequest,
        response: HTTPResponse,
        varyDigestKey: VaryDigestKey = .perProcess
    ) -> String {
        VaryFields.variantKey(of: request, varyNames: VaryFields.names(in: response), key: varyDigestKey)
    }
}
