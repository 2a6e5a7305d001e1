public import CacheChain
import CacheChainCore
import CacheChainPolicy
import HTTPTypes

/// Performs batch requests through one client (one cache for the whole process) and turns each outcome
/// into its reply.
///
/// - A request's ``BatchRequest/cacheMode`` picks the cache policy and whether the response may be stored;
///   its ``BatchRequest/redirect`` mode travels in the context to `RedirectInterceptor`.
/// - ``BatchRequest/timeout`` bounds the whole request (every redirect hop included) and is also the
///   transport's timeout; when it passes, the request is cancelled and the reply is an error.
/// - `only-if-cached` with nothing usable stored answers 504 Gateway Timeout (RFC 9111 §5.2.1.7) with the
///   cache status `unsatisfiable`, rather than an error.
/// - Any other failure is an `{"id":N,"error":"…"}` reply; nothing is retried.
public struct BatchExecutor: Sendable {
    /// The client every request goes through.
    public let client: HTTPCacheClient

    /// Creates an executor.
    /// - Parameter client: The client; put `RedirectInterceptor` in its outer interceptors so that
    ///   `redirect: follow` follows redirects.
    public init(client: HTTPCacheClient) {
        self.client = client
    }

    /// Performs one request.
    /// - Parameter request: The request.
    /// - Returns: Its reply; never throws (failures are error replies).
    public func reply(to request: BatchRequest) async -> BatchReply {
        do {
            let response = try await send(request)
            return try BatchReply(id: request.id, response: response, method: request.request.head.method)
        } catch let error as CacheChainError where error.code == .notInCache && request.cacheMode == .onlyIfCached {
            return Self.unsatisfiable(request, error)
        } catch let error as CacheChainError {
            return BatchReply(id: request.id, outcome: .error(error.description))
        } catch is CancellationError {
            return BatchReply(id: request.id, outcome: .error("cancelled: the request was cancelled"))
        } catch {
            return BatchReply(id: request.id, outcome: .error(String(describing: error)))
        }
    }

    private func send(_ request: BatchRequest) async throws -> PipelineResponse {
        let client = self.client
        let run = { @Sendable () async throws -> PipelineResponse in
            try await client.send(
                request.request,
                cachePolicy: request.cacheMode.cachePolicy,
                isStoringAllowed: request.cacheMode.isStoringAllowed,
                timeout: request.timeout,
                values: request.contextValues
            )
        }
        guard let timeout = request.timeout else { return try await run() }
        return try await withThrowingTaskGroup(of: PipelineResponse?.self) { group in
            group.addTask { try await run() }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard case .some(.some(let response)) = try await group.next() else {
                throw CacheChainError(
                    .timedOut,
                    "no response within timeout_ms = \(Int64((timeout / .milliseconds(1)).rounded())) ms",
                    request: request.request.head
                )
            }
            return response
        }
    }

    private static func unsatisfiable(_ request: BatchRequest, _ error: CacheChainError) -> BatchReply {
        var fields = HTTPFields()
        fields[.cacheControl] = "no-store"
        fields[.contentLength] = "0"
        let response = PipelineResponse(
            head: HTTPResponse(status: .gatewayTimeout, headerFields: fields),
            cacheStatus: .unsatisfiable,
            trace: [CacheReason(.onlyIfCached, error.message)]
        )
        do {
            return try BatchReply(id: request.id, response: response, method: request.request.head.method)
        } catch {
            return BatchReply(id: request.id, outcome: .error(error.description))
        }
    }
}
