#if AsyncHTTPClient
import AsyncHTTPClient
import CacheChainCore
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// Conversion between CacheChain's currency types (swift-http-types, ``PipelineBody``) and AsyncHTTPClient's, at the
/// boundary and nowhere else.
extension CacheChainAHCTransport {
    /// The AsyncHTTPClient request for a pipeline request: absolute URL, method, fields in order, body streamed.
    /// - Throws: ``CacheChainError`` `invalid-request` when the request is not absolute `http`/`https`.
    static func clientRequest(for request: PipelineRequest) throws(CacheChainError) -> HTTPClientRequest {
        let head = request.head
        guard let scheme = head.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let authority = head.authority, !authority.isEmpty
        else {
            throw CacheChainError(.invalidRequest, "CacheChainAHCTransport needs an absolute http or https request", request: head)
        }
        var outgoing = HTTPClientRequest(url: "\(scheme)://\(authority)\(head.path ?? "/")")
        outgoing.method = HTTPMethod(rawValue: head.method.rawValue)
        outgoing.headers.add(contentsOf: head.headerFields.lazy.map { ($0.name.rawName, $0.value) })
        if let body = request.body {
            if let bytes = body.inMemoryBytes {
                outgoing.body = .bytes(ByteBuffer(bytes: bytes))
            } else {
                let buffers = body.chunks().map { ByteBuffer(bytes: $0) }
                outgoing.body = .stream(buffers, length: .known(Int64(body.count)))
            }
        }
        return outgoing
    }

    /// The swift-http-types head of an AsyncHTTPClient response; fields whose names are not valid tokens are
    /// dropped (SwiftNIO's parser lets through what HTTP's grammar does not).
    static func responseHead(of response: HTTPClientResponse) -> HTTPResponse {
        var fields = HTTPFields()
        fields.reserveCapacity(response.headers.count)
        for (name, value) in response.headers {
            guard let fieldName = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        let status = HTTPResponse.Status(code: Int(response.status.code), reasonPhrase: response.status.reasonPhrase)
        return HTTPResponse(status: status, headerFields: fields)
    }

    /// Rewrites a head whose body AsyncHTTPClient decoded: no `Content-Encoding`, no `Content-Length` of the
    /// encoded bytes (the stored head then describes the stored body). Encodings it does not decode are left.
    static func describeDecodedBody(_ head: inout HTTPResponse) {
        guard let encoding = head.headerFields[.contentEncoding]?.lowercased().trimmingCharacters(in: .whitespaces),
            encoding == "gzip" || encoding == "deflate"
        else { return }
        head.headerFields[.contentEncoding] = nil
        head.headerFields[.contentLength] = nil
    }
}
#endif
