#if Vapor
import CacheChainClient
import CacheChainCore
import CacheChainInterceptors
import HTTPTypes
import NIOCore
import NIOHTTP1
import Vapor

/// Conversion between Vapor's `ClientRequest`/`ClientResponse` (SwiftNIO's `HTTPHeaders`, `ByteBuffer`) and
/// CacheChain's currency types (swift-http-types, `PipelineBody`), at the boundary and nowhere else.
extension CacheChainVaporClient {
    /// The pipeline request for a Vapor request: method, absolute URL, fields in order, body, timeout.
    /// - Throws: `CacheChainError` `invalid-request` when the URL is not absolute `http`/`https`, or a method or
    ///   field name is not a valid HTTP token.
    static func pipelineRequest(for request: ClientRequest) throws(CacheChainError) -> PipelineRequest {
        guard let method = HTTPRequest.Method(request.method.rawValue) else {
            throw CacheChainError(.invalidRequest, "'\(request.method.rawValue)' is not a valid HTTP method (CacheChainVaporClient)")
        }
        var fields = HTTPFields()
        fields.reserveCapacity(request.headers.count)
        for (name, value) in request.headers {
            guard let fieldName = HTTPField.Name(name) else {
                throw CacheChainError(
                    .invalidRequest,
                    "the request header '\(name)' to \(request.url.string) is not a valid field name: remove it or correct its spelling"
                )
            }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        let head: HTTPRequest
        do {
            head = try HTTPRequest(method: method, url: request.url.string, headerFields: fields)
        } catch let error as CacheChainError {
            throw error
        } catch {
            throw CacheChainError(.invalidRequest, "'\(request.url.string)' is not an absolute http or https URL", underlying: error)
        }
        let body = request.body.map { PipelineBody($0.readableBytesView) }
        var pipelineRequest = PipelineRequest(head: head, body: body)
        if let timeout = request.timeout {
            pipelineRequest.timeout = .nanoseconds(timeout.nanoseconds)
        }
        return pipelineRequest
    }

    /// Vapor's response for a pipeline response: status with its reason phrase, fields in order, the cache's
    /// `Cache-Status` member (RFC 9211) added unless the client's `CacheStatusInterceptor` already did, the body
    /// in one buffer (`nil` when empty); a file-backed body is read on a Dispatch worker thread, not the cooperative
    /// pool.
    /// - Throws: `CacheChainError` `body-unreadable` when a file-backed body cannot be read.
    static func clientResponse(
        for response: PipelineResponse,
        from cacheClient: HTTPCacheClient,
        allocator: ByteBufferAllocator
    ) async throws(CacheChainError) -> ClientResponse {
        var response = response
        let configuration = cacheClient.configuration
        if !configuration.outerInterceptors.contains(where: { $0 is CacheStatusInterceptor }) {
            let member = CacheStatusField.value(for: response, now: configuration.clock.now(), policy: configuration.policy)
            if let upstream = response.head.headerFields[CacheStatusField.name], !upstream.isEmpty {
                response.head.headerFields[CacheStatusField.name] = upstream + ", " + member
            } else {
                response.head.headerFields[CacheStatusField.name] = member
            }
        }
        var headers = HTTPHeaders()
        headers.reserveCapacity(response.head.headerFields.count)
        for field in response.head.headerFields {
            headers.add(name: field.name.rawName, value: field.value)
        }
        let status = HTTPResponseStatus(statusCode: response.head.status.code, reasonPhrase: response.head.status.reasonPhrase)
        var body: ByteBuffer?
        if !response.body.isEmpty {
            if let bytes = response.body.inMemoryBytes {
                body = allocator.buffer(bytes: bytes)
            } else {
                let source = response.body
                body = allocator.buffer(bytes: try await OffPoolIO.run { () throws(CacheChainError) in try source.collect() })
            }
        }
        return ClientResponse(status: status, headers: headers, body: body, byteBufferAllocator: allocator)
    }
}
#endif
