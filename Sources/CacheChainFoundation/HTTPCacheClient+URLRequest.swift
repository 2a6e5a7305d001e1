public import CacheChain
public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif
import HTTPTypesFoundation

extension HTTPCacheClient {
    /// Sends a `URLRequest` through the cache, honouring its `cachePolicy`, `httpBody` and `timeoutInterval`:
    /// the drop-in for `URLSession.data(for:)` when coming from URLCache.
    /// - Parameter request: The Foundation request (absolute `http`/`https` URL).
    /// - Returns: The body and an `HTTPURLResponse`.
    /// - Throws: `CacheChainError` (`invalid-request` when the request cannot be expressed as an HTTP request).
    public func data(for request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let response = try await response(for: request)
        guard let url = request.url, let http = HTTPURLResponse(httpResponse: response.head, url: url) else {
            throw CacheChainError(.invalidRequest, "the response to \(request.url?.absoluteString ?? "?") cannot be expressed as an HTTPURLResponse")
        }
        return (Data(try response.body.collect()), http)
    }

    /// Sends a `URLRequest` through the cache and returns CacheChain's response, with its cache status and trace.
    /// - Parameter request: The Foundation request.
    /// - Returns: The pipeline response.
    /// - Throws: `CacheChainError`.
    public func response(for request: URLRequest) async throws -> PipelineResponse {
        guard let head = request.httpRequest else {
            throw CacheChainError(.invalidRequest, "'\(request.url?.absoluteString ?? "nil")' is not an absolute http or https URL")
        }
        let body = request.httpBody.map { PipelineBody($0) }
        let timeout: Duration? = request.timeoutInterval > 0 ? .milliseconds(Int(request.timeoutInterval * 1000)) : nil
        return try await send(
            PipelineRequest(head: head, body: body),
            cachePolicy: RequestCachePolicy(request.cachePolicy),
            timeout: timeout
        )
    }
}
