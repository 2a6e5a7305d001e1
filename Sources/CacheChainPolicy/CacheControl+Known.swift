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

        /// Each known directive with its name as written in a field (lowercase).
        private static let named: [(directive: Known, name: String)] = [
            (.noCache, "no-cache"), (.noStore, "no-store"), (.maxAge, "max-age"), (.sMaxAge, "s-maxage"),
            (.maxStale, "max-stale"), (.minFresh, "min-fresh"), (.mustRevalidate, "must-revalidate"),
            (.proxyRevalidate, "proxy-revalidate"), (.public, "public"), (.private, "private"),
            (.immutable, "immutable"), (.onlyIfCached, "only-if-cached"),
            (.staleWhileRevalidate, "stale-while-revalidate"), (.staleIfError, "stale-if-error"),
            (.mustUnderstand, "must-understand"),
        ]

        /// The bit of a lowercased directive name; empty for names the engine never asks about.
        init(name: String) {
            self = Self.named.first { $0.name == name }?.directive ?? []
        }

        /// The directive's name as written in a field (lowercase); empty unless exactly one bit is set.
        var name: String {
            Self.named.first { $0.directive == self }?.name ?? ""
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
