import CacheChain
import CacheChainCurl
import Synchronization

/// A network interceptor that keeps the last request the cache sent to the origin (with the validators a
/// revalidation added), for `get -v`: what curl's `>` lines show is what went on the wire.
final class SentRequestRecorder: HTTPInterceptor {
    private let last = Mutex<HTTPRequest?>(nil)

    /// The last request sent; `nil` when the answer came from the cache without the network.
    var request: HTTPRequest? { last.withLock { $0 } }

    func intercept(_ request: PipelineRequest, context: InterceptorContext, next: Next) async throws -> PipelineResponse {
        last.withLock { $0 = request.head }
        return try await next(request, context)
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
