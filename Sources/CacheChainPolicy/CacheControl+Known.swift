extension CacheControl {
    /// The directive names the policy engine asks about, one bit each, set while parsing: asking whether
    /// one is present is then a bit test instead of a scan with string comparisons (this runs on every hit).
    struct Known: OptionSet, Sendable, Hashable {
        let rawValue: UInt32

        init(rawValue: UInt32) {
            self.rawValue = rawValue
        }

        static let noCache = Known(rawValue: 1 << 0)
        static let noStore = Known(rawValue: 1 << 1)
        static let maxAge = Known(rawValue: 1 << 2)
        static let sMaxAge = Known(rawValue: 1 << 3)
        static let maxStale = Known(rawValue: 1 << 4)
        static let minFresh = Known(rawValue: 1 << 5)
        static let mustRevalidate = Known(rawValue: 1 << 6)
        static let proxyRevalidate = Known(rawValue: 1 << 7)
        static let `public` = Known(rawValue: 1 << 8)
        static let `private` = Known(rawValue: 1 << 9)
        static let immutable = Known(rawValue: 1 << 10)
        static let onlyIfCached = Known(rawValue: 1 << 11)
        static let staleWhileRevalidate = Known(rawValue: 1 << 12)
        static let staleIfError = Known(rawValue: 1 << 13)
        static let mustUnderstand = Known(rawValue: 1 << 14)

        /// The bit of a lowercased directive name; empty for names the engine never asks about.
        init(name: String) {
            switch name {
            case "no-cache": self = .noCache
            case "no-store": self = .noStore
            case "max-age": self = .maxAge
            case "s-maxage": self = .sMaxAge
            case "max-stale": self = .maxStale
            case "min-fresh": self = .minFresh
            case "must-revalidate": self = .mustRevalidate
            case "proxy-revalidate": self = .proxyRevalidate
            case "public": self = .public
            case "private": self = .private
            case "immutable": self = .immutable
            case "only-if-cached": self = .onlyIfCached
            case "stale-while-revalidate": self = .staleWhileRevalidate
            case "stale-if-error": self = .staleIfError
            case "must-understand": self = .mustUnderstand
            default: self = []
            }
        }

        /// The directive's name as written in a field (lowercase).
        var name: String {
            switch self {
            case .noCache: "no-cache"
            case .noStore: "no-store"
            case .maxAge: "max-age"
            case .sMaxAge: "s-maxage"
            case .maxStale: "max-stale"
            case .minFresh: "min-fresh"
            case .mustRevalidate: "must-revalidate"
            case .proxyRevalidate: "proxy-revalidate"
            case .public: "public"
            case .private: "private"
            case .immutable: "immutable"
            case .onlyIfCached: "only-if-cached"
            case .staleWhileRevalidate: "stale-while-revalidate"
            case .staleIfError: "stale-if-error"
            case .mustUnderstand: "must-understand"
            default: ""
            }
        }
    }

    /// Whether a known directive is present: a bit test.
    func contains(_ directive: Known) -> Bool {
        known.contains(directive)
    }

    /// ``seconds(_:)`` of a known directive, without a scan when it is absent (the usual case).
    func seconds(_ directive: Known) -> DeltaSeconds? {
        known.contains(directive) ? seconds(directive.name) : nil
    }
}
