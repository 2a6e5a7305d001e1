public import HTTPTypes

/// What the cache's front door (`CachePolicyInterceptor`) found and decided for one request, handed inward on the
/// request (``PipelineRequest/cacheLookup``) so that the interceptors inside act on it instead of computing it
/// again.
///
/// The front door computes the request's ``key`` once, asks the policy engine once, and — when the decision is
/// to validate — puts the decision's conditional request and the stored variants a `304 Not Modified` may
/// freshen in ``validation``. The revalidation interceptor sends ``Validation/conditional`` as it is; the
/// storage decision stores under ``key``.
///
/// ```
///  CachePolicy ──(request + CacheLookup{key, validation?})──▶ Revalidation ──▶ StorageDecision ──▶ transport
/// ```
///
/// An interceptor that finds no lookup on the request computes what it needs itself (each built-in documents
/// how), so every one of them still works alone.
public struct CacheLookup: Sendable, Hashable {
    /// The request's primary key under the context's ``CacheKeyStrategy``.
    public var key: CacheKey
    /// The validation the decision asked for; `nil` when the request goes to the origin unconditionally.
    public var validation: Validation?

    /// A conditional request and the stored variants it validates.
    public struct Validation: Sendable, Hashable {
        /// The decision's conditional `GET`: the request with the candidates' validators added
        /// (`CacheDecision.validate(indices:conditional:_:)`).
        public var conditional: HTTPRequest
        /// The stored variants a `304 Not Modified` may freshen, in the decision's order.
        public var candidates: [CacheEntry]

        /// Creates a validation.
        /// - Parameters:
        ///   - conditional: The conditional request to send.
        ///   - candidates: The stored variants it validates.
        public init(conditional: HTTPRequest, candidates: [CacheEntry]) {
            self.conditional = conditional
            self.candidates = candidates
        }
    }

    /// Creates a lookup.
    /// - Parameters:
    ///   - key: The request's primary key.
    ///   - validation: The validation to perform, if any.
    public init(key: CacheKey, validation: Validation? = nil) {
        self.key = key
        self.validation = validation
    }
}
