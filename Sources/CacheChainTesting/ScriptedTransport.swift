public import CacheChainCore
import Foundation
import HTTPTypes

/// A test double for the origin, for unit tests of single rules: answers per path from a script,
/// answers `If-None-Match` with 304 when the route's `ETag` matches, records every request, and can be
/// switched "down" to make every request fail.
///
/// Integration tests should use the real libcurl transport against the loopback origin instead.
///
/// ```swift
/// let origin = ScriptedTransport()
/// origin.route("/a", fields: [("Cache-Control", "max-age=60")], body: "hello", etag: "\"v1\"")
/// let client = HTTPCacheClient(transport: origin)
/// ```
public final class ScriptedTransport: HTTPTransport {
    /// One scripted answer.
    public struct Route: Sendable {
        /// The status code.
        public var status: Int
        /// Response fields, in order.
        public var fields: [(String, String)]
        /// The body (omitted for `HEAD` and 304).
        public var body: PipelineBody
        /// The entity tag; a matching `If-None-Match` gets a 304.
        public var etag: String?

        /// Creates a route.
        /// - Parameters:
        ///   - status: The status code.
        ///   - fields: Response fields, in order.
        ///   - body: The body.
        ///   - etag: The entity tag.
        public init(status: Int = 200, fields: [(String, String)] = [], body: PipelineBody = .empty, etag: String? = nil) {
            self.status = status
            self.fields = fields
            self.body = body
            self.etag = etag
        }
    }

    /// The error thrown by every request while the transport is down.
    public struct OriginDown: Error, CustomStringConvertible {
        /// A fixed description.
        public var description: String { "the scripted origin is down" }
    }

    private struct State {
        var routes: [String: Route] = [:]
        var received: [PipelineRequest] = []
        var isDown = false
    }

    private let state = LockedValue(State())

    /// Creates a transport with no routes (every path answers 404).
    public init() {}

    /// Scripts the answer for a path (matched with its query).
    /// - Parameters:
    ///   - path: The request path.
    ///   - route: The answer.
    public func route(_ path: String, _ route: Route) {
        state.withLock { $0.routes[path] = route }
    }

    /// Scripts the answer for a path.
    /// - Parameters:
    ///   - path: The request path.
    ///   - status: The status code.
    ///   - fields: Response fields, in order.
    ///   - body: The body text.
    ///   - etag: The entity tag.
    public func route(_ path: String, status: Int = 200, fields: [(String, String)], body: String, etag: String? = nil) {
        route(path, Route(status: status, fields: fields, body: PipelineBody(string: body), etag: etag))
    }

    /// Makes every request fail with ``OriginDown`` (`true`) or answer again (`false`).
    /// - Parameter down: Whether the origin is unreachable.
    public func setDown(_ down: Bool) {
        state.withLock { $0.isDown = down }
    }

    /// Every request received, in order.
    public var receivedRequests: [PipelineRequest] { state.withLock { $0.received } }

    /// The number of requests received for a path.
    /// - Parameter path: The request path.
    /// - Returns: The count.
    public func requestCount(for path: String) -> Int {
        state.withLock { $0.received.count { $0.head.path == path } }
    }

    /// Answers a request from the script.
    /// - Parameters:
    ///   - request: The request.
    ///   - context: Unused.
    /// - Returns: The scripted response, a 304, or a 404.
    /// - Throws: ``OriginDown`` while down.
    public func send(_ request: PipelineRequest, context: InterceptorContext) async throws -> PipelineResponse {
        let (route, isDown) = state.withLock { state -> (Route?, Bool) in
            state.received.append(request)
            return (state.routes[request.head.path ?? ""], state.isDown)
        }
        if isDown { throw OriginDown() }
        guard let route else { return PipelineResponse(head: HTTPResponse(status: .notFound)) }
        var fields = HTTPFields()
        for (name, value) in route.fields {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        if let etag = route.etag { fields[.eTag] = etag }
        if let etag = route.etag, let condition = request.head.headerFields[.ifNoneMatch],
            condition.split(separator: ",").contains(where: {
                let tag = $0.trimmingCharacters(in: .whitespaces)
                return tag == "*" || tag == etag || tag == "W/\(etag)"
            })
        {
            return PipelineResponse(head: HTTPResponse(status: .notModified, headerFields: fields))
        }
        if fields[.contentLength] == nil { fields[.contentLength] = String(route.body.count) }
        let body = request.head.method == .head ? PipelineBody.empty : route.body
        return PipelineResponse(head: HTTPResponse(status: .init(code: route.status), headerFields: fields), body: body)
    }
}
