public import FoundationEssentials
public import HTTPTypes

/// The tunable parts of the RFC 9111 rules.
public struct CachePolicyConfiguration: Sendable, Hashable {
    /// Private (default) or shared cache rules.
    public var mode: CacheMode
    /// The fraction of the time since `Last-Modified` used as a heuristic freshness lifetime
    /// (RFC 9111 §4.2.2 suggests 10%).
    public var heuristicFraction: Double
    /// The longest heuristic freshness lifetime, in seconds (one day by default).
    public var maximumHeuristicLifetime: TimeInterval
    /// The targeted cache-control fields (RFC 9213) this cache obeys, in precedence order; read only in a shared
    /// cache (``CacheMode/sharedCache``), never in a private one. `[.cdnCacheControl]` by default.
    ///
    /// In a shared cache, the first of these fields a response carries with a valid, non-empty value (a
    /// Structured Field Dictionary, RFC 9213 §2.2) takes the place of its `Cache-Control` and `Expires` for
    /// every decision: storing, freshness, validation, serving stale. A field that does not parse, or is
    /// empty, is ignored as if absent. Add a field name of your own (e.g. `CacheChain-Cache-Control`) to
    /// target this cache alone, before or after `CDN-Cache-Control`; an empty list turns targeting off.
    /// The fields are stored and forwarded like any other end-to-end field. See
    /// <doc:TargetedCacheControl>.
    public var targetedCacheControlFields: [HTTPField.Name]
    /// The switch as set; `nil` follows ``mode``.
    private var staleWhenOriginUnreachable: Bool?

    /// Whether a stored response is served stale when the origin cannot be reached (RFC 9111 §4.2.4: the
    /// connection is refused, reset or closed before any response arrived, or the name does not resolve), even
    /// without `stale-if-error`.
    ///
    /// Never for a response that forbids it (`must-revalidate`, `no-cache`, and in a shared cache
    /// `proxy-revalidate` and `s-maxage`), nor for a request that says `no-cache` (or `Pragma: no-cache`) or
    /// runs under a `reloadIgnoring…` policy or `reloadRevalidatingCacheData` (stored data only if the origin
    /// confirms it). The response is served with status `offline`, the trace code
    /// `origin-unreachable`, and `Cache-Status: …; fwd=stale; ttl=-N; detail=origin-unreachable`.
    ///
    /// Unless set, it follows ``mode``: **on in a private cache**, where the one user is better served by the
    /// last copy than by an error (what browsers do offline); **off in a shared cache**, which answers many
    /// users at once and would hide an outage from all of them with content the origin never allowed to be
    /// served stale — there an origin opts in per response with `stale-if-error`, or the operator sets this on.
    public var servesStaleWhenOriginUnreachable: Bool {
        get { staleWhenOriginUnreachable ?? (mode == .privateCache) }
        set { staleWhenOriginUnreachable = newValue }
    }

    /// Creates a configuration.
    /// - Parameters:
    ///   - mode: Private or shared cache.
    ///   - heuristicFraction: Heuristic fraction of the `Last-Modified` age; 0 disables heuristic freshness.
    ///   - maximumHeuristicLifetime: Cap on heuristic lifetimes, in seconds.
    ///   - servesStaleWhenOriginUnreachable: Whether stored responses are served stale when the origin cannot be
    ///     reached; `nil` (the default) means on in a private cache and off in a shared one
    ///     (see ``servesStaleWhenOriginUnreachable``).
    ///   - targetedCacheControlFields: The targeted cache-control fields a shared cache obeys, first in
    ///     precedence first (see ``targetedCacheControlFields``); `CDN-Cache-Control` by default.
    public init(
        mode: CacheMode = .privateCache,
        heuristicFraction: Double = 0.1,
        maximumHeuristicLifetime: TimeInterval = 86_400,
        servesStaleWhenOriginUnreachable: Bool? = nil,
        targetedCacheControlFields: [HTTPField.Name] = [.cdnCacheControl]
    ) {
        self.targetedCacheControlFields = targetedCacheControlFields
        self.mode = mode
        self.heuristicFraction = heuristicFraction
        self.maximumHeuristicLifetime = maximumHeuristicLifetime
        self.staleWhenOriginUnreachable = servesStaleWhenOriginUnreachable
    }
}
