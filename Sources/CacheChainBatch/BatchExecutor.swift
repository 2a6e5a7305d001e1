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
/// - A body larger than ``bodyLimit``'s inline size is written to a file or answered with a
///   `body-too-large` error (``BatchBodyLimit``), never inlined.
/// - Any other failure is an `{"id":N,"error":"…"}` reply; nothing is retried.
///
/// Replies whose body is a file (a large download, a spooled or file-stored response) are built on
/// Dispatch's worker threads: reading and writing files never blocks Swift's cooperative pool.
public struct BatchExecutor: Sendable {
    /// The client every request goes through.
    public let client: HTTPCacheClient
    /// How bodies too large for one reply line are delivered.
    public let bodyLimit: BatchBodyLimit

    /// Creates an executor.
    /// - Parameters:
    ///   - client: The client; put `RedirectInterceptor` in its outer interceptors so that `redirect: follow`
    ///     follows redirects.
    ///   - bodyLimit: The inline limit and where larger bodies go; 8 MiB and an error reply by default.
    public init(client: HTTPCacheClient, bodyLimit: BatchBodyLimit = BatchBodyLimit()) {
        self.client = client
        self.bodyLimit = bodyLimit
    }

    /// Performs one request.
    /// - Parameter request: The request.
    /// - Returns: Its reply; never throws (failures are error replies).
    public func reply(to request: BatchRequest) async -> BatchReply {
        do {
            let response = try await send(request)
            return try await makeReply(request, response)
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

    /// The reply for a response: inline, in a file, or `body-too-large`, per ``bodyLimit``.
    private func makeReply(_ request: BatchRequest, _ response: PipelineResponse) async throws(CacheChainError) -> BatchReply {
        let method = request.request.head.method
        let length = BatchReply.carriesBody(response.head.status, method: method) ? response.body.count : 0
        if length > bodyLimit.maximumInlineSize {
            guard let directory = bodyLimit.fileDirectory else {
                throw CacheChainError(
                    .bodyTooLarge,
                    "the response body is \(length) bytes, more than the \(bodyLimit.maximumInlineSize) bytes a reply line "
                        + "carries (--max-inline-body); give a directory for larger bodies (--body-dir) to receive it as a file",
                    request: request.request.head
                )
            }
            let path = try await OffPoolIO.run { () throws(CacheChainError) in
                try BatchBodyFile.write(response.body, requestID: request.id, directory: directory)
            }
            return BatchReply(id: request.id, response: response, bodyFile: path)
        }
        guard response.body.file != nil else { return try BatchReply(id: request.id, response: response, method: method) }
        return try await OffPoolIO.run { () throws(CacheChainError) in
            try BatchReply(id: request.id, response: response, method: method)
        }
    }

    private func send(_ request: BatchRequest) async throws -> PipelineResponse {
        let client = self.client
        var pipelineRequest = request.request
        pipelineRequest.head.headerFields = request.cacheMode.requestFields(pipelineRequest.head.headerFields)
        if !request.cacheMode.isStoringAllowed { pipelineRequest.storageLimit = .refused }
        let sent = pipelineRequest
        let run = { @Sendable () async throws -> PipelineResponse in
            try await client.send(
                sent,
                cachePolicy: request.cacheMode.cachePolicy,
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
