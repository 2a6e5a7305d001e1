public import HTTPTypes

/// The cache's one answer for one request: computed once by the cache's front door (`CachePolicyInterceptor`) and
/// handed inward on the request (``PipelineRequest/cachePlan``), so that the interceptors inside act on it instead
/// of computing anything again.
///
/// ```
///  CachePolicy ──(request + CachePlan{key, validation?, sentAs?, responseOverride?})──▶ Revalidation
///      │ hit: served here, nothing inward                                                   │ conditional request
///      │ miss/validate: coalesced, then inward                                              ▼
///      ◀───────────────────────────────────────────────────────────────── StorageDecision ──▶ transport
///                                                         (the one writer: store, 304 merge, invalidation)
/// ```
///
/// The front door computes the request's ``key``, looks it up once, asks the policy engine once and applies the
/// features the request needs (a range from a stored response, a body key, a policy override) as inputs of that one
/// decision. A request that reaches the inner interceptors carries what they act on:
/// - ``validation``: the decision's conditional request and the stored variants a `304 Not Modified` freshens — the
///   revalidation interceptor sends it, the storage decision merges the `304`;
/// - ``sentAs``: for a request cached by its body (`POST`/`QUERY` under a `BodyKeyedCachingRule`), which travels the
///   chain as a `GET`, the method and body the origin gets;
/// - ``responseOverride``: a policy-override rule's change to the response's caching fields, which the storage
///   decision applies before anything is stored.
///
/// An interceptor that finds no plan on the request computes what it needs itself (each built-in documents how),
/// so every one of them still works alone.
public struct CachePlan: Sendable, Hashable, CustomReflectable {
    /// The request's primary key under the context's ``CacheKeyStrategy`` (with a body digest for a body-keyed
    /// request).
    public var key: CacheKey {
        get { storage.key }
        set { mutableStorage().key = newValue }
    }
    /// The validation the decision asked for; `nil` when the request goes to the origin unconditionally.
    public var validation: Validation? {
        get { storage.validation }
        set { mutableStorage().validation = newValue }
    }
    /// The method and body the origin gets for a request that travels the chain as a `GET` because it is cached
    /// by its body; `nil` for every other request.
    public var sentAs: SentRequest? {
        get { storage.sentAs }
        set { mutableStorage().sentAs = newValue }
    }
    /// The change a policy-override rule makes to the response's caching fields before it is stored; `nil` when
    /// no rule applies.
    public var responseOverride: ResponseOverride? {
        get { storage.responseOverride }
        set { mutableStorage().responseOverride = newValue }
    }

    /// The plan's values behind one reference: a request carrying a plan is copied at every interceptor boundary,
    /// and a plan inline would make each copy ~170 bytes and a retain per field (issue 42's miss path).
    private var storage: Storage

    private final class Storage: @unchecked Sendable {  // invariant: written only through `mutableStorage()`, which copies it first unless this plan holds the only reference, so a storage another plan (on any thread) can see is never written
        var key: CacheKey
        var validation: Validation?
        var sentAs: SentRequest?
        var responseOverride: ResponseOverride?

        init(key: CacheKey, validation: Validation?, sentAs: SentRequest?, responseOverride: ResponseOverride?) {
            self.key = key
            self.validation = validation
            self.sentAs = sentAs
            self.responseOverride = responseOverride
        }

        func copy() -> Storage {
            Storage(key: key, validation: validation, sentAs: sentAs, responseOverride: responseOverride)
        }
    }

    /// The storage, copied first when another plan shares it (copy on write).
    private mutating func mutableStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// Whether two plans have the same key, validation, origin form and response override.
    /// - Parameters:
    ///   - lhs: A plan.
    ///   - rhs: Another plan.
    /// - Returns: `true` when every value is equal.
    public static func == (lhs: CachePlan, rhs: CachePlan) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.key == rhs.key && lhs.validation == rhs.validation && lhs.sentAs == rhs.sentAs
                && lhs.responseOverride == rhs.responseOverride)
    }

    /// Hashes the plan's values.
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(validation)
        hasher.combine(sentAs)
        hasher.combine(responseOverride)
    }

    /// The plan's values, for `dump`, `print` and test failure messages (not its storage reference).
    public var customMirror: Mirror {
        Mirror(self, children: ["key": key, "validation": validation as Any, "sentAs": sentAs as Any, "responseOverride": responseOverride as Any])
    }

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

    /// What the origin gets for a body-keyed request, which the chain handles as a `GET`.
    public struct SentRequest: Sendable, Hashable {
        /// The request's own method (`POST` or `QUERY`).
        public var method: HTTPRequest.Method
        /// The request's own body, as read once for its digest.
        public var body: [UInt8]

        /// Creates the origin's form of a body-keyed request.
        /// - Parameters:
        ///   - method: The method to send.
        ///   - body: The body to send.
        public init(method: HTTPRequest.Method, body: [UInt8]) {
            self.method = method
            self.body = body
        }
    }

    /// A policy-override rule's response side: what the storage decision changes in a network response's caching
    /// fields before it decides whether to store it.
    public struct ResponseOverride: Sendable, Hashable {
        /// A freshness lifetime a rule gives.
        public enum Freshness: Sendable, Hashable {
            /// This lifetime when the origin gives none (no `max-age`, `s-maxage` or `Expires`).
            case whenAbsent(Duration)
            /// This lifetime, replacing the origin's.
            case always(Duration)
        }

        /// The rule's name, for the trace.
        public var ruleName: String
        /// Whether the response is never stored (`no-store` is added).
        public var isNeverCache: Bool
        /// The lifetime the rule gives, if any.
        public var freshness: Freshness?

        /// Creates a response override.
        /// - Parameters:
        ///   - ruleName: The rule's name.
        ///   - isNeverCache: Whether the response is never stored.
        ///   - freshness: The lifetime the rule gives.
        public init(ruleName: String, isNeverCache: Bool = false, freshness: Freshness? = nil) {
            self.ruleName = ruleName
            self.isNeverCache = isNeverCache
            self.freshness = freshness
        }
    }

    /// Creates a plan.
    /// - Parameters:
    ///   - key: The request's primary key.
    ///   - validation: The validation to perform, if any.
    ///   - sentAs: The origin's form of a body-keyed request, if it is one.
    ///   - responseOverride: A policy-override rule's response side, if one applies.
    public init(
        key: CacheKey,
        validation: Validation? = nil,
        sentAs: SentRequest? = nil,
        responseOverride: ResponseOverride? = nil
    ) {
        storage = Storage(key: key, validation: validation, sentAs: sentAs, responseOverride: responseOverride)
    }
}

/// The former name of ``CachePlan``.
@available(*, deprecated, renamed: "CachePlan")
public typealias CacheLookup = CachePlan
