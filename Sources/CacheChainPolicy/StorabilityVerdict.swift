/// Whether a response may be stored (RFC 9111 §3), with the reasons.
public enum StorabilityVerdict: Sendable, Hashable {
    /// The response may be stored; the reasons note anything notable (e.g. heuristic freshness).
    case storable([CacheReason])
    /// The response must not be stored; the reasons say why.
    case notStorable([CacheReason])

    /// Whether the verdict is ``storable(_:)``.
    public var isStorable: Bool {
        if case .storable = self { return true }
        return false
    }

    /// The reasons, whatever the verdict.
    public var reasons: [CacheReason] {
        switch self {
        case .storable(let reasons), .notStorable(let reasons): reasons
        }
    }
}
