public import HTTPTypes

/// The error every CacheChain module throws.
///
/// A struct over an extensible code, so new codes never break a `switch` in user code. It names what
/// failed (``code`` and ``message``) and what the request was, and wraps the underlying error once, at the
/// module boundary. Its ``shortDescription`` is safe for metrics labels.
public struct CacheChainError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The stable token, e.g. `transport-failed`.
        public var rawValue: String

        /// Creates a code from its token.
        /// - Parameter rawValue: The token.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The token.
        public var description: String { rawValue }

        /// The transport could not obtain a response (connection refused, reset, TLS, timeout…).
        public static let transportFailed = Code(rawValue: "transport-failed")
        /// The request timed out.
        public static let timedOut = Code(rawValue: "timed-out")
        /// The request was cancelled.
        public static let cancelled = Code(rawValue: "cancelled")
        /// `returnCacheDataDontLoad` found no usable stored response; the network was not used.
        public static let notInCache = Code(rawValue: "not-in-cache")
        /// A storage backend failed.
        public static let storageFailed = Code(rawValue: "storage-failed")
        /// A file-backed body could not be read (missing, truncated or unreadable file), or was larger than
        /// the limit given to ``PipelineBody/collect(upTo:)``.
        public static let bodyUnreadable = Code(rawValue: "body-unreadable")
        /// A stored entry failed its integrity check (it is removed).
        public static let integrityCheckFailed = Code(rawValue: "integrity-check-failed")
        /// An interceptor broke the chain's contract (for example called `next` twice).
        public static let interceptorContractViolation = Code(rawValue: "interceptor-contract-violation")
        /// The request is malformed (no scheme, no authority, unsupported URL).
        public static let invalidRequest = Code(rawValue: "invalid-request")
        /// The configuration is unusable (bad key file, missing directory…).
        public static let invalidConfiguration = Code(rawValue: "invalid-configuration")
        /// A request was redirected more often than the client's `maximumRedirects` allows (a loop, or a longer
        /// chain than configured); curl's `CURLE_TOO_MANY_REDIRECTS`.
        public static let tooManyRedirects = Code(rawValue: "too-many-redirects")
        /// An encryption key is not available: there is no current key to seal new entries with, or the key
        /// an entry was sealed with is no longer provided (rotated out or destroyed).
        public static let keyUnavailable = Code(rawValue: "key-unavailable")
    }

    /// What kind of failure this is.
    public var code: Code
    /// What failed and what to do, in plain words.
    public var message: String
    /// The request concerned, when there is one.
    public var request: HTTPRequest?
    /// The cache key concerned, when there is one.
    public var cacheKey: CacheKey?
    /// The error this one wraps (a libcurl, OpenSSL or file-system error).
    public var underlying: (any Error)?
    /// Whether the transport failed before any part of a response arrived because the origin could not be
    /// reached: the connection was refused, reset or closed without a response, or the name did not resolve
    /// (RFC 9111 §4.2.4's "disconnected"). A transport sets it; `CachePolicyInterceptor` may then serve a stored
    /// response stale (`CachePolicyConfiguration.servesStaleWhenOriginUnreachable`). `false` for a timeout, a
    /// TLS failure and anything that happened after the status line.
    public var isOriginUnreachable = false

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: What failed and what to do.
    ///   - request: The request concerned.
    ///   - cacheKey: The key concerned.
    ///   - underlying: The wrapped error.
    public init(
        _ code: Code,
        _ message: String,
        request: HTTPRequest? = nil,
        cacheKey: CacheKey? = nil,
        underlying: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.request = request
        self.cacheKey = cacheKey
        self.underlying = underlying
    }

    /// The code alone: safe as a metrics label.
    public var shortDescription: String { code.rawValue }

    /// The code, the message and the underlying error.
    public var description: String {
        var text = "\(code.rawValue): \(message)"
        if let underlying { text += " (\(underlying))" }
        return text
    }
}
