public import CacheChainCore
import CacheChainPolicy
import HTTPTypes
import Tracing

/// Follows redirects above the cache, so that the cache sees — and may store — every hop.
///
/// `HTTPCacheClient`'s default chain starts with one (`Configuration.isRedirectFollowingEnabled`,
/// `Configuration.maximumRedirects`); in a pipeline you compose, put it first (outermost). A `301`, `302`, `303`, `307` or
/// `308` with a `Location` is followed by sending the next hop through the whole pipeline again
/// (`InterceptorChain.outermost`), so each hop gets its own cache lookup and storage decision, as
/// RFC 9111 allows for each response. `303` (and `301`/`302` after `POST`) continue with `GET` and no body;
/// `307`/`308` keep the method and body. `Authorization`, `Cookie` and `Proxy-Authorization` are dropped when a
/// hop leaves the original origin (scheme, host or port), as browsers and AsyncHTTPClient do, and are not sent
/// again on later hops, even back to that origin. More than ``maximumRedirects`` hops is a `too-many-redirects` error naming the chain.
/// Outside a `Pipeline` (unbound) it returns the 3xx as is.
///
/// A request whose context carries ``Mode/manual`` under ``ModeKey`` is not followed: its 3xx is returned
/// as is, with its body (Fetch's `redirect: "manual"`):
/// ```swift
/// var values = ContextValues()
/// values[RedirectInterceptor.ModeKey.self] = .manual
/// let response = try await client.send(PipelineRequest(head: request), values: values)  // the 3xx itself
/// ```
public struct RedirectInterceptor: ChainBoundInterceptor {
    /// Whether one request's redirects are followed (Fetch's `redirect` option, without `error`).
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// Follow each hop through the whole pipeline (the default when no mode is set).
        case follow
        /// Return the 3xx response itself, with its body.
        case manual
    }

    /// The context key that sets one request's ``Mode``; absent means ``Mode/follow``.
    public enum ModeKey: ContextValueKey {
        /// The mode.
        public typealias Value = Mode
    }

    /// The most hops followed for one request.
    public var maximumRedirects: Int

    /// Creates the interceptor.
    /// - Parameter maximumRedirects: The hop limit; 10 by default, like browsers' 20 and libcurl's 30 but stricter.
    public init(maximumRedirects: Int = 10) {
        self.maximumRedirects = maximumRedirects
    }

    /// The whole pipeline, given by the pipeline (`nil` until bound).
    private var outermost: Next?

    /// This interceptor with the pipeline it sends each hop through.
    /// - Parameter chain: The pipeline's entry points.
    /// - Returns: The bound interceptor.
    public func bound(to chain: InterceptorChain) -> any HTTPInterceptor {
        var bound = self
        bound.outermost = chain.outermost
        return bound
    }

    private enum HopsKey: ContextValueKey { typealias Value = [String] }

    /// Sends the request and follows the redirects it gets.
    /// - Parameters:
    ///   - request: The request.
    ///   - context: Its context.
    ///   - next: The rest of the chain.
    /// - Returns: The final response, whose trace lists the hops followed (the 3xx itself in ``Mode/manual``).
    /// - Throws: The chain's error, or `too-many-redirects` when there are too many hops.
    public func intercept(_ request: PipelineRequest, context: InterceptorContext, next: Next) async throws -> PipelineResponse {
        var response = try await next(request, context)
        let status = response.head.status.code
        guard status == 301 || status == 302 || status == 303 || status == 307 || status == 308,
            context.values[ModeKey.self] != .manual,
            let location = response.head.headerFields[.location],
            let outermost,
            let target = InvalidationTarget(resolving: location, against: request.head)
        else { return response }
        let hops = (context.values[HopsKey.self] ?? []) + [Self.url(of: request.head)]
        guard hops.count <= maximumRedirects else {
            throw CacheChainError(
                .tooManyRedirects,
                "more than \(maximumRedirects) redirects: \(hops.joined(separator: " → ")); raise maximumRedirects or fix the origin",
                request: request.head
            )
        }
        var nextRequest = request
        nextRequest.head.scheme = target.scheme
        nextRequest.head.authority = target.authority
        nextRequest.head.path = target.path
        nextRequest.head.normalizeTarget()  // as the client's front door does: the hop is fetched as it is keyed
        if status == 303 || ((status == 301 || status == 302) && request.head.method == .post) {
            if nextRequest.head.method != .head { nextRequest.head.method = .get }
            nextRequest.body = nil
            nextRequest.head.headerFields[.contentType] = nil
            nextRequest.head.headerFields[.contentLength] = nil
        }
        if target.scheme != request.head.scheme?.lowercased() || target.authority.lowercased() != request.head.authority?.lowercased() {
            nextRequest.head.headerFields[.authorization] = nil
            nextRequest.head.headerFields[.cookie] = nil
            nextRequest.head.headerFields[.proxyAuthorization] = nil
        }
        var inner = context
        inner.values[HopsKey.self] = hops
        let hop = CacheReason(.redirected, "\(status) → \(target.scheme)://\(target.authority)\(nextRequest.head.path ?? target.path)")
        if let tracer = context.tracer {
            response = try await Self.inHopSpan(nextRequest, resendCount: hops.count, context: inner, tracer: tracer, outermost)
        } else {
            response = try await outermost(nextRequest, inner)
        }
        response.trace.insert(hop, at: 0)
        return response
    }

    /// Sends a followed hop inside a client span of its own, a child of the span whose response redirected, as the OpenTelemetry
    /// HTTP conventions ask for each resend (`http.request.resend_count`: 1 for the first redirect): the transport
    /// sends this span's trace context, and its status is the hop's.
    private static func inHopSpan(
        _ request: PipelineRequest,
        resendCount: Int,
        context: InterceptorContext,
        tracer: any Tracer,
        _ outermost: Next
    ) async throws -> PipelineResponse {
        try await tracer.withSpan(HTTPClientSpan.name(of: request.head), ofKind: .client) { span in
            HTTPClientSpan.setRequestAttributes(of: request.head, on: span)
            span.updateAttributes { $0["http.request.resend_count"] = resendCount }
            var context = context
            context.span = span
            let response = try await outermost(request, context)
            span.updateAttributes { $0["http.response.status_code"] = response.head.status.code }
            if response.head.status.code >= 400 { span.setStatus(SpanStatus(code: .error)) }
            return response
        }
    }

    private static func url(of request: HTTPRequest) -> String {
        "\(request.scheme ?? "")://\(request.authority ?? "")\(request.path ?? "")"
    }
}
