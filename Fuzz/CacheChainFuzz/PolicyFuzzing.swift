import CacheChainCurl
import CacheChainPolicy
import Foundation
import HTTPTypes

/// The policy engine's parsers: `Cache-Control`, HTTP-dates and everything read from a response head.
enum PolicyFuzzing {
    /// The directives the policy engine looks up.
    static let askedNames = [
        "no-cache", "no-store", "max-age", "s-maxage", "max-stale", "min-fresh", "must-revalidate", "proxy-revalidate",
        "public", "private", "immutable", "only-if-cached", "stale-while-revalidate", "stale-if-error", "must-understand",
    ]

    static func cacheControl(_ bytes: [UInt8]) -> Bool {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let directives = CacheControl(lines: lines)
        // The names the engine asks about and the first few parsed ones (each lookup scans every directive,
        // so checking them all would make a long input quadratic in the harness, not in the parser).
        for directive in directives.directives.prefix(4) {
            precondition(directives.contains(directive.name), "a parsed directive is not found by name")
        }
        for name in askedNames {
            precondition(directives.contains(name) == directives.directives.contains { $0.name == name }, "\(name) found wrongly")
            _ = directives.seconds(name)
        }
        precondition(CacheControl(lines: lines) == directives, "parsing is not deterministic")
        return !directives.directives.isEmpty
    }

    static func httpDate(_ bytes: [UInt8]) -> Bool {
        guard let date = HTTPDate.parse(String(decoding: bytes, as: UTF8.self)) else { return false }
        let formatted = HTTPDate.format(date)
        precondition(HTTPDate.parse(formatted) == date, "\(formatted) does not parse back to the date it was made from")
        return true
    }

    /// Input: a selector byte (bits 0–2 the status, bit 3 the cache mode, bits 4–7 the request cache policy),
    /// then the response's header lines as libcurl reports them (an interim response and its empty line first, if any), a NUL byte, and the request's header lines. One mode and one policy per input
    /// keeps each run short; libFuzzer reaches every combination through the selector.
    static func responseHead(_ bytes: [UInt8]) -> Bool {
        var input = FuzzBytes(bytes)
        let selector = Int(input.byte())
        let status = [0, 200, 203, 206, 301, 304, 404, 500][selector & 7]
        let mode: CacheMode = selector & 8 == 0 ? .privateCache : .sharedCache
        let policies = RequestCachePolicy.allCases
        let policy = policies[policies.index(policies.startIndex, offsetBy: (selector >> 4) % policies.count)]
        let rest = input.rest
        let split = rest.firstIndex(of: 0) ?? rest.count
        let response = rest[..<split].withUnsafeBytes { CurlFuzzing.responseHead(fromHeaderBlock: $0, status: status) }
        let requestFields = rest[min(split + 1, rest.count)...].withUnsafeBytes {
            CurlFuzzing.responseHead(fromHeaderBlock: $0, status: 200).headerFields
        }
        let request = HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/", headerFields: requestFields)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        // The transport's last step: framing checked (`Content-Length`, `Transfer-Encoding`), the head rewritten.
        _ = MessageFraming.defect(of: response)
        _ = MessageFraming.headDescribing(response, bodyLength: selector * 3, requestMethod: selector & 0x40 == 0 ? .get : .head)
        let engine = CachePolicyEngine(configuration: .init(mode: mode))
        let isStorable = engine.storability(request: request, response: response).isStorable
        let stored = StoredExchange(request: request, response: engine.headForStorage(response), requestTime: now, responseTime: now)
        let later = now.addingTimeInterval(Double(response.headerFields.count) * 37)
        _ = engine.freshness(of: stored, now: later)
        _ = engine.responseForServing(stored, now: later)
        _ = engine.canServeStaleOnError(stored, request: request, now: later)
        _ = engine.selectVariant(for: request, among: [stored])
        _ = engine.conditionalRequest(for: request, validating: [stored])
        _ = engine.evaluateConditional(request: request, servedResponse: response)
        _ = engine.invalidationTargets(request: request, response: response)
        _ = engine.hostMismatch(of: request)
        _ = engine.decide(request: request, policy: policy, stored: [stored], now: later)
        if response.status.code == 304 { _ = engine.selectForFreshening(notModified: response, candidates: [stored]) }
        return isStorable
    }
}
