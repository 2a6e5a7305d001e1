import HTTPTypes

/// The RFC 9111 rules as pure functions: no I/O and no clock reads (time is always a parameter).
///
/// Each concern lives in its own file, named after the RFC section it implements:
/// storability (§3, `+Storability`), freshness and age (§4.2, `+Freshness`), `Vary` matching (§4.1,
/// `+Variants`), the serve/validate/fetch decision under Apple's cache policies (§4, §5.2.1, §5.4,
/// `+Decision`), conditional requests and 304 handling (§4.3, `+Validation`), invalidation (§4.4,
/// `+Invalidation`) and serving (`Age`, `stale-if-error`, answering conditionals, `+Serving`).
///
/// Where Apple's documents describe revalidation with a `HEAD` request, the engine follows RFC 9111 and
/// validates with a conditional `GET` (`If-None-Match` / `If-Modified-Since`).
public struct CachePolicyEngine: Sendable {
    /// Private or shared mode and the heuristic parameters.
    public var configuration: CachePolicyConfiguration
    /// The key under which the stored entries the engine is given digested their secret `Vary` fields
    /// (``VaryFields``): the storage's `varyDigestKey(for:)`, which the cache interceptors set; the
    /// process's key by default.
    public var varyDigestKey: VaryDigestKey
    /// Called each time ``selectVariant(for:among:)`` runs: how tests count variant selections per request.
    package var variantSelectionObserver: (@Sendable () -> Void)?

    /// Creates an engine.
    /// - Parameters:
    ///   - configuration: The rules' parameters; a private cache by default.
    ///   - varyDigestKey: The key of the stored entries' secret `Vary` digests; the process's by default.
    public init(configuration: CachePolicyConfiguration = .init(), varyDigestKey: VaryDigestKey = .perProcess) {
        self.configuration = configuration
        self.varyDigestKey = varyDigestKey
    }

    /// Whether shared-cache rules apply.
    var isShared: Bool { configuration.mode == .sharedCache }

    /// Status codes that are heuristically cacheable (RFC 9110 §15.1): cacheable by default, so a lifetime
    /// given to one (a policy override) never makes an error page or a created resource cacheable.
    public static let heuristicallyCacheableStatuses: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    /// The final status codes whose caching requirements this cache implements, for `must-understand`
    /// (RFC 9111 §5.2.2.3): those RFC 9110 §15 defines, except `206` (ranges are not cached) and `304` (never
    /// stored itself).
    static let understoodStatuses: Set<Int> = Set(200...205).union(300...303).union([305, 307, 308])
        .union(400...417).union([421, 422, 426]).union(500...505)

    /// Whether `must-revalidate` applies: the directive itself or, in a shared cache, `proxy-revalidate`
    /// or `s-maxage` (§5.2.2.2, §5.2.2.8, §5.2.2.10).
    func forbidsStaleUse(_ directives: CacheControl) -> Bool {
        directives.contains(.mustRevalidate)
            || (isShared && (directives.contains(.proxyRevalidate) || directives.contains(.sMaxAge)))
    }

    /// The request's `Cache-Control`, with `Pragma: no-cache` read as `no-cache` when the request has no
    /// `Cache-Control` field (§5.4).
    func requestDirectives(_ request: HTTPRequest) -> (directives: CacheControl, pragmaNoCache: Bool) {
        let directives = CacheControl(request.headerFields)
        guard !request.headerFields.contains(.cacheControl), request.headerFields.contains(.pragma) else {
            return (directives, false)
        }
        let pragma = request.headerFields[values: .pragma].contains { value in
            CacheControl.splitOutsideQuotes(value).contains { $0.trimmingOWS().lowercased() == "no-cache" }
        }
        return (directives, pragma)
    }
}
