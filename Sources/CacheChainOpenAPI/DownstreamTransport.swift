#if OpenAPI
import CacheChainClient
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The pipeline's transport inside ``HTTPCacheMiddleware``: the rest of the OpenAPI middleware chain, reached
/// through the `next` the middleware received for this request (carried in the context's values).
struct DownstreamTransport: HTTPTransport {
    /// The rest of the chain for one request.
    struct Downstream: Sendable {
        /// The middleware's `next`, valid while the middleware's `intercept` runs.
        let send: @Sendable (HTTPRequest, OpenAPIRuntime.HTTPBody?, URL) async throws -> (HTTPResponse, OpenAPIRuntime.HTTPBody?)
        /// The server URL the operation was called with.
        let baseURL: URL
        /// The operation's path and query, relative to ``baseURL``.
        let relativePath: String?
        /// How to hold the response body.
        let limits: HTTPCacheMiddleware.BodyLimits
    }

    /// Where ``HTTPCacheMiddleware`` puts the ``Downstream`` of a request.
    enum Key: ContextValueKey {
        typealias Value = Downstream
    }

    /// Sends the pipeline's request (with the fields the cache added, e.g. `If-None-Match`) down the chain, in
    /// the OpenAPI shape (a path relative to the server URL), and collects the response body.
    func send(_ request: PipelineRequest, context: InterceptorContext) async throws -> PipelineResponse {
        guard let downstream = context.values[Key.self] else {
            throw CacheChainError(
                .invalidConfiguration,
                "the OpenAPI downstream transport was used outside HTTPCacheMiddleware.intercept; add HTTPCacheMiddleware to the client's middlewares instead",
                request: request.head
            )
        }
        var outgoing = HTTPRequest(
            method: request.head.method,
            scheme: nil,
            authority: nil,
            path: downstream.relativePath,
            headerFields: request.head.headerFields
        )
        outgoing.extendedConnectProtocol = request.head.extendedConnectProtocol
        let body = request.body.map { OpenAPIRuntime.HTTPBody($0) }
        let (head, responseBody) = try await downstream.send(outgoing, body, downstream.baseURL)
        guard let responseBody else { return PipelineResponse(head: head) }
        return PipelineResponse(head: head, body: try await CacheChainCore.PipelineBody(collecting: responseBody, limits: downstream.limits))
    }
}
#else
#error("CacheChainOpenAPI needs the OpenAPI trait: depend with .package(url: …, from: '0.2.0', traits: ['OpenAPI'])")
#endif
