public import CacheChainCore
public import Logging
import CacheChainPolicy
import HTTPTypes

/// Logs one line per request with the cache's decision and its reason codes.
///
/// A line looks like `cache decision` with metadata `method=GET url=https://api.example.com/items?…
/// status=200 cache_status=hit reasons=fresh,stored`. It never logs bodies or header values (so no
/// cookies, no `Authorization`), and by default replaces the query string with `?…`, since queries often
/// carry tokens. Failed requests are logged at `error` level with the error's code.
///
/// ```swift
/// let client = HTTPCacheClient(transport: CurlTransport(), configuration: .init(
///     outerInterceptors: [DecisionLoggingInterceptor(logger: Logger(label: "app.cache"))]
/// ))
/// ```
public struct DecisionLoggingInterceptor: HTTPInterceptor {
    private let logger: Logger
    private let level: Logger.Level
    private let logsQuery: Bool

    /// Creates the interceptor.
    /// - Parameters:
    ///   - logger: Where lines go; the library never bootstraps logging.
    ///   - level: The level of decision lines; `info` by default.
    ///   - logsQuery: Whether to log query strings as sent; `false` (they are replaced by `?…`).
    public init(logger: Logger, level: Logger.Level = .info, logsQuery: Bool = false) {
        self.logger = logger
        self.level = level
        self.logsQuery = logsQuery
    }

    /// Logs the decision of the rest of the chain.
    /// - Parameters:
    ///   - request: The request.
    ///   - context: Its context.
    ///   - next: The rest of the chain.
    /// - Returns: The chain's response.
    /// - Throws: The chain's error, after logging its code.
    public func intercept(_ request: PipelineRequest, context: InterceptorContext, next: Next) async throws -> PipelineResponse {
        let method = request.head.method.rawValue
        let url = Self.loggableURL(request.head, logsQuery: logsQuery)
        do {
            let response = try await next(request, context)
            logger.log(
                level: level,
                "cache decision",
                metadata: [
                    "method": "\(method)",
                    "url": "\(url)",
                    "status": "\(response.head.status.code)",
                    "cache_status": "\(response.cacheStatus.rawValue)",
                    "reasons": "\(response.trace.map(\.code.rawValue).joined(separator: ","))",
                ]
            )
            return response
        } catch {
            let code = (error as? CacheChainError)?.shortDescription ?? "\(type(of: error))"
            logger.error("cache request failed", metadata: ["method": "\(method)", "url": "\(url)", "error": "\(code)"])
            throw error
        }
    }

    /// The URL as logged: scheme, authority and path, with the query replaced by `?…` unless asked otherwise.
    static func loggableURL(_ head: HTTPRequest, logsQuery: Bool) -> String {
        let path = head.path ?? "/"
        let shown: Substring
        if !logsQuery, let question = path.firstIndex(of: "?") {
            shown = path[..<question] + "?…"
        } else {
            shown = Substring(path)
        }
        return "\(head.scheme ?? "http")://\(head.authority ?? "")\(shown)"
    }
}
