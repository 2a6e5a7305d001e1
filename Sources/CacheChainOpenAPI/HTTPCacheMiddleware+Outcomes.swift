#if OpenAPI
public import CacheChainClient
public import HTTPTypes

extension HTTPCacheMiddleware {
    /// What the cache did for one operation: its status (`hit`, `miss`, `revalidated`, …) and why.
    public struct Outcome: Sendable {
        /// The OpenAPI operation identifier.
        public let operationID: String
        /// The request as the cache saw it (absolute: the server URL's scheme and authority).
        public let request: HTTPRequest
        /// Where the response came from.
        public let cacheStatus: CacheStatus
        /// The reasons behind the decision, as in `PipelineResponse.trace`.
        public let trace: [CacheReason]
        /// The response's `userInfo` (stamped or stored values).
        public let userInfo: CacheUserInfo
    }

    /// Runs `body` and returns what it returned with the outcome of every operation it sent through an
    /// ``HTTPCacheMiddleware``, in the order they finished.
    ///
    /// ```swift
    /// import CacheChainClient
    /// import CacheChainOpenAPI
    /// import OpenAPIAsyncHTTPClient
    ///
    /// let client = Client(serverURL: try Servers.Server1.url(), transport: AsyncHTTPClientTransport(), middlewares: [HTTPCacheMiddleware()])
    /// let (greeting, outcomes) = try await HTTPCacheMiddleware.collectingOutcomes {
    ///     try await client.getGreeting(path: .init(name: "ada"))
    /// }
    /// print(try greeting.ok.body.json.message, outcomes.map(\.cacheStatus), outcomes.last?.trace ?? [])
    /// ```
    /// Operations started in child tasks of `body` are recorded too (the recorder is a task-local value);
    /// operations that failed record nothing.
    /// - Parameter body: The work that calls the generated client.
    /// - Returns: `body`'s result and the outcomes.
    /// - Throws: What `body` throws.
    public static func collectingOutcomes<Result>(
        _ body: () async throws -> Result
    ) async rethrows -> (result: Result, outcomes: [Outcome]) {
        let recorder = OutcomeRecorder()
        let result = try await OutcomeRecorder.$current.withValue(recorder) { try await body() }
        return (result, recorder.outcomes)
    }
}

/// The outcomes recorded for one ``HTTPCacheMiddleware/collectingOutcomes(_:)`` call.
final class OutcomeRecorder: Sendable {
    /// The recorder of the enclosing ``HTTPCacheMiddleware/collectingOutcomes(_:)``, if any.
    @TaskLocal static var current: OutcomeRecorder?

    private let recorded = LockedValue<[HTTPCacheMiddleware.Outcome]>([])

    func record(_ outcome: HTTPCacheMiddleware.Outcome) {
        recorded.withLock { $0.append(outcome) }
    }

    var outcomes: [HTTPCacheMiddleware.Outcome] { recorded.withLock { $0 } }
}
#endif
