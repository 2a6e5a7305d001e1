import CacheChain
import Foundation

/// The plain-words explanation of one stored response's freshness that `cachechain explain` prints.
struct FreshnessExplanation {
    /// The lines, in order.
    let lines: [String]

    init(_ listed: ListedEntry) {
        let entry = listed.entry
        let response = entry.cached.response
        let report = listed.freshness
        let control = CacheControl(response.headerFields)
        var lines = ["\(entry.key.method) \(entry.key.url)"]
        if !entry.variantKey.isEmpty { lines.append("  variant:   \(entry.variantKey)") }
        lines.append(
            "  stored:    \(ISO8601DateFormatter().string(from: entry.storedAt)), status \(response.status.code), "
                + "\(entry.cached.body.count) bytes, storage policy \(entry.cached.storagePolicy)"
        )
        lines.append("  lifetime:  \(Int(report.lifetime.seconds)) s — \(Self.source(report.lifetime.source, control, response))")
        lines.append("  age:       \(Int(report.currentAge)) s (RFC 9111 §4.2.3: Age header, time in transit, time stored)")
        if report.isFresh {
            lines.append("  verdict:   FRESH — served without asking the origin for another \(Int(report.remainingFreshness)) s")
        } else {
            lines.append("  verdict:   STALE by \(Int(report.staleness)) s — the next default request validates it with the origin")
        }
        lines += Self.directives(control).map { "  directive: \($0)" }
        lines += Self.validators(response)
        if let vary = response.headerFields[.vary] {
            lines.append("  vary:      \(vary) — a request gets this response only if those request fields match")
        }
        self.lines = lines
    }

    private static func source(_ source: FreshnessLifetime.Source, _ control: CacheControl, _ response: HTTPResponse) -> String {
        switch source {
        case .sharedMaxAge: "Cache-Control: s-maxage (shared caches only)"
        case .maxAge: "Cache-Control: max-age=\(control.seconds("max-age")?.value.map(String.init) ?? "?")"
        case .expires: "Expires (\(response.headerFields[.expires] ?? "?")) minus Date"
        case .heuristic: "heuristic: 10% of the time since Last-Modified (no explicit lifetime)"
        case .none: "no max-age, Expires or Last-Modified: stale as soon as stored"
        case .invalid: "an invalid max-age or Expires: treated as stale"
        }
    }

    private static func directives(_ control: CacheControl) -> [String] {
        var notes: [String] = []
        if control.contains("no-cache") { notes.append("no-cache — every use must be validated with the origin first") }
        if control.contains("must-revalidate") { notes.append("must-revalidate — once stale, never served without validation") }
        if control.contains("immutable") { notes.append("immutable — not revalidated while fresh, even on reload") }
        if control.contains("private") { notes.append("private — stored only by a private cache (this one)") }
        if let seconds = control.seconds("stale-while-revalidate")?.value {
            notes.append("stale-while-revalidate=\(seconds) — may be served stale for \(seconds) s while refreshed in the background")
        }
        if let seconds = control.seconds("stale-if-error")?.value {
            notes.append("stale-if-error=\(seconds) — may be served stale for \(seconds) s when the origin fails")
        }
        return notes
    }

    private static func validators(_ response: HTTPResponse) -> [String] {
        var lines: [String] = []
        if let etag = response.headerFields[.eTag] { lines.append("  validator: ETag \(etag) — revalidated with If-None-Match (a 304 refreshes it)") }
        if let modified = response.headerFields[.lastModified] {
            lines.append("  validator: Last-Modified \(modified) — revalidated with If-Modified-Since")
        }
        if lines.isEmpty { lines.append("  validator: none — once stale it is fetched again in full") }
        return lines
    }
}
