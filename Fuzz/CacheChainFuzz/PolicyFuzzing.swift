import CacheChainCurl
import CacheChainPolicy
import Foundation
import HTTPTypes

/// The policy engine's parsers: `Cache-Control`, HTTP-dates and everything read from a response head.
enum PolicyFuzzing {
    static func cacheControl(_ bytes: [UInt8]) -> Bool {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let directives = CacheControl(lines: lines)
        for directive in directives.directives {
            precondition(directives.contains(directive.name), "a parsed directive is not found by name")
            _ = directives.seconds(directive.name)
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

    /// Input: a status selector, then response header lines, an empty line, and request header lines.
    static func responseHead(_ bytes: [UInt8]) -> Bool {
        var input = FuzzBytes(bytes)
        let status = [0, 200, 203, 206, 301, 304, 404, 500][Int(input.byte() % 8)]
        let rest = input.rest
        let split = rest.indices.first { rest[$0] == 10 && $0 + 1 < rest.count && rest[$0 + 1] == 10 } ?? rest.count
        let response = rest[..<split].withUnsafeBytes { CurlFuzzing.responseHead(fromHeaderBlock: $0, status: status) }
        let requestFields = rest[min(split + 2, rest.count)...].withUnsafeBytes {
            CurlFuzzing.responseHead(fromHeaderBlock: $0, status: 200).headerFields
        }
        let request = HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/", headerFields: requestFields)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var isStorable = false
        for mode in [CacheMode.privateCache, .sharedCache] {
            let engine = CachePolicyEngine(configuration: .init(mode: mode))
            isStorable = engine.storability(request: request, response: response).isStorable || isStorable
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
            for policy in RequestCachePolicy.allCases {
                _ = engine.decide(request: request, policy: policy, stored: [stored], now: later)
            }
            if response.status.code == 304 { _ = engine.selectForFreshening(notModified: response, candidates: [stored]) }
        }
        return isStorable
    }
}
