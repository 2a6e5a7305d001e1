public import CacheChainCore
import CacheChainPolicy
import HTTPTypes

/// The responses of one request in cached-then-fresh mode (SDWebImage's `RefreshCached`): the stored response
/// at once, then the origin's answer when it differs. Made by ``HTTPCacheClient/responses(for:body:)``.
///
/// Each iteration of the sequence does its own work in the iterating task, so cancelling that task cancels
/// the network transfer under way, and nothing runs once the consumer stops asking:
/// 1. The first element is the stored response, whatever its freshness, with its `cacheStatus` (`hit` or
///    `stale`) and `trace`, without contacting the origin. When nothing usable is stored, the first element is
///    the origin's response (`miss`) and it is the only one.
/// 2. Asking for the next element revalidates the stored response with the origin (a conditional `GET`, or a
///    plain one when it has no validators), under `reloadRevalidatingCacheData`; the origin's response is
///    stored by the usual rules. It is delivered only when it `PipelineResponse.differs(from:)` the cached
///    one: a `304 Not Modified`, or a `200` with the same status, validators and body, ends the sequence
///    after one element.
/// 3. A network error after the cached element is thrown by that second `next()`: the consumer already has
///    the cached response and learns that it could not be refreshed. When `stale-if-error` covers the failure,
///    the stored response is what the refresh got, so the sequence ends after one element.
///
/// Methods other than `GET` and `HEAD` are not served from the cache: the sequence has one element, the
/// origin's response.
public struct CachedThenFreshResponses: AsyncSequence, Sendable {
    /// A response with its `cacheStatus` and decision `trace`.
    public typealias Element = PipelineResponse

    let client: HTTPCacheClient
    let request: PipelineRequest

    /// Starts from the stored response.
    /// - Returns: A fresh iterator; each iterator does the lookup and the refresh again.
    public func makeAsyncIterator() -> Iterator {
        Iterator(client: client, request: request)
    }

    /// Produces the cached response, then the fresh one when it differs.
    public struct Iterator: AsyncIteratorProtocol {
        enum Step {
            case lookUp
            case refresh(cached: PipelineResponse)
            case finished
        }

        let client: HTTPCacheClient
        let request: PipelineRequest
        var step = Step.lookUp

        /// Returns the next response: the stored one, then the origin's when it differs, then `nil`.
        /// - Returns: The response, or `nil` when the sequence is over.
        /// - Throws: `CacheChainError` from the network (`transport-failed`, `cancelled`, …); the sequence is
        ///   then over.
        public mutating func next() async throws -> PipelineResponse? {
            switch step {
            case .finished:
                return nil
            case .lookUp:
                step = .finished
                guard request.head.method == .get || request.head.method == .head,
                    let cached = try await storedResponse()
                else {
                    return try await client.send(request, cachePolicy: .useProtocolCachePolicy)
                }
                step = .refresh(cached: cached)
                return cached
            case .refresh(let cached):
                step = .finished
                let fresh = try await client.send(request, cachePolicy: .reloadRevalidatingCacheData)
                return try await fresh.differs(from: cached) ? fresh : nil
            }
        }

        /// The stored response under `returnCacheDataDontLoad`, or `nil` when nothing usable is stored.
        private func storedResponse() async throws -> PipelineResponse? {
            do {
                return try await client.send(request, cachePolicy: .returnCacheDataDontLoad)
            } catch let error as CacheChainError where error.code == .notInCache {
                return nil
            }
        }
    }
}

extension HTTPCacheClient {
    /// Sends a request in cached-then-fresh mode: the stored response at once, then the origin's response when
    /// it differs from the stored one (SDWebImage's `RefreshCached`).
    ///
    /// ```swift
    /// for try await response in client.responses(for: try HTTPRequest(url: "https://example.com/feed")) {
    ///     print(response.cacheStatus, response.body.count)   // hit: the stored feed at once; miss: the new one
    /// }
    /// ```
    /// See ``CachedThenFreshResponses`` for when each element comes, what "differs" means and what happens on a
    /// network error.
    /// - Parameters:
    ///   - request: The request; it needs a scheme and an authority.
    ///   - body: An optional request body.
    /// - Returns: A sequence of one or two responses; the work happens as it is iterated.
    public func responses(for request: HTTPRequest, body: PipelineBody? = nil) -> CachedThenFreshResponses {
        CachedThenFreshResponses(client: self, request: PipelineRequest(head: request, body: body))
    }
}

extension PipelineResponse {
    /// Whether a response from the origin brings something new compared with a cached one: it is not a `304`
    /// confirmation (`cacheStatus` `revalidated`) and its status code, its validators (`ETag`,
    /// `Last-Modified`) or its body bytes differ. Other fields (`Date`, `Age`, `Cache-Control`) are not compared.
    ///
    /// Bodies are compared only when everything else is equal and their lengths match; file-backed bodies are
    /// read off the cooperative pool.
    /// - Parameter cached: The response served from the cache.
    /// - Returns: `true` when the response should be delivered as an update.
    /// - Throws: `CacheChainError` when a file-backed body cannot be read.
    public func differs(from cached: PipelineResponse) async throws -> Bool {
        guard cacheStatus != .revalidated else { return false }
        guard head.status.code == cached.head.status.code,
            head.headerFields[.eTag] == cached.head.headerFields[.eTag],
            head.headerFields[.lastModified] == cached.head.headerFields[.lastModified],
            body.count == cached.body.count
        else { return true }
        if body.file == nil, cached.body.file == nil { return body != cached.body }
        let (left, right) = (body, cached.body)
        return try await OffPoolIO.run { left != right }
    }
}
