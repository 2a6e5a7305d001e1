import CacheChain
import Foundation
import CacheChainCurl
import Synchronization

/// A network interceptor that keeps every exchange the cache had with the origin for one `get` (with the
/// validators a revalidation added), for `get -v`: what curl's `>` and `<` lines show is what went on the wire,
/// each redirect hop included.
final class SentRequestRecorder: HTTPInterceptor {
    private let exchanges = Mutex<[(request: HTTPRequest, response: PipelineResponse)]>([])

    /// The exchanges in the order they were sent.
    var recorded: [(request: HTTPRequest, response: PipelineResponse)] { exchanges.withLock { $0 } }

    func intercept(_ request: PipelineRequest, context: InterceptorContext, next: Next) async throws -> PipelineResponse {
        let response = try await next(request, context)
        exchanges.withLock { $0.append((request.head, response)) }
        return response
    }

    /// The request sent for the final answer (its URL is `finalURL`), or `nil` when the cache answered it alone,
    /// and the earlier hops that went to the origin.
    func split(finalURL: String) -> (final: HTTPRequest?, hops: [(request: HTTPRequest, response: PipelineResponse)]) {
        let all = recorded
        guard let index = all.lastIndex(where: { VerboseOutput.url(of: $0.request) == finalURL }) else { return (nil, all) }
        var hops = all
        let final = hops.remove(at: index)
        return (final.request, hops)
    }
}

/// `get -v` and `get --trace` on stderr: curl's `>` request and `<` response lines (with `-v`), then what the
/// cache did and why, as `*` lines.
struct VerboseOutput {
    /// The request lines, as curl's `-v` prints them: `> GET /path HTTP/1.1`, `> Host: …`, each field, `>`.
    /// - Parameters:
    ///   - request: The request sent to the origin, or the one given when the cache answered alone.
    ///   - version: The HTTP version the response came over.
    ///   - fromCache: Whether no request reached the network.
    static func requestLines(_ request: HTTPRequest, version: String, fromCache: Bool) -> [String] {
        var lines = fromCache ? ["* answered from the cache: nothing was sent to the origin"] : []
        lines.append("> \(request.method.rawValue) \(request.path ?? "/") \(version)")
        if let authority = request.authority { lines.append("> Host: \(authority)") }
        for field in request.headerFields { lines.append("> \(field.name.rawName): \(field.value)") }
        lines.append(">")
        return lines
    }

    /// The URL a request was sent to: `scheme://authority/path`.
    static func url(of request: HTTPRequest) -> String {
        "\(request.scheme ?? "http")://\(request.authority ?? "")\(request.path ?? "/")"
    }

    /// The URL of the final answer: the last redirect hop's target in the trace, or `url` when none was followed.
    static func finalURL(of response: PipelineResponse, requested url: String) -> String {
        guard let hop = response.trace.last(where: { $0.code == .redirected }), let arrow = hop.detail.range(of: " → ") else { return url }
        return String(hop.detail[arrow.upperBound...])
    }

    /// With `-L -v`, each redirect hop that went to the origin before the final answer, as curl shows it: its
    /// request and response lines, then `* Issue another request to this URL: '…'`.
    static func hopLines(_ hops: [(request: HTTPRequest, response: PipelineResponse)], version: String) -> [String] {
        hops.flatMap { hop in
            requestLines(hop.request, version: version, fromCache: false) + responseLines(hop.response)
                + (hop.response.head.headerFields[.location].map { ["* Issue another request to this URL: '\($0)'"] } ?? [])
        }
    }

    /// The response lines: `< HTTP/1.1 200 OK`, each field, `<`.
    static func responseLines(_ response: PipelineResponse) -> [String] {
        ResponseOutput.headText(of: response).split(separator: "\r\n", omittingEmptySubsequences: false)
            .dropLast()  // the text ends with an empty line after the blank one
            .map { $0.isEmpty ? "<" : "< \($0)" }
    }

    /// What the cache did: `MISS 200 URL` and one `  · reason` line per decision (prefixed `* ` with `-v`).
    static func traceLines(_ response: PipelineResponse, url: String, prefix: String) -> [String] {
        ["\(prefix)\(response.cacheStatus.label) \(response.head.status.code) \(url)"]
            + response.trace.map { "\(prefix)  · \($0)" }
    }
}
