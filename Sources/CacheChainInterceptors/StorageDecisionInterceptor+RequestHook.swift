public import CacheChainCore

extension StorageDecisionInterceptor {
    /// The context key under which one request carries its own `willCacheResponse` hook.
    ///
    /// The storage decision runs it after the hook the interceptor was created with, on what that one
    /// decided; either may veto by returning `nil`. It is how a caller that learns its hook per request
    /// decides for that request alone: `CacheChainURLProtocol` puts the session delegate's
    /// `urlSession(_:dataTask:willCacheResponse:completionHandler:)` here for each task.
    ///
    /// ```swift
    /// var values = ContextValues()
    /// values[StorageDecisionInterceptor.WillCacheResponseKey.self] = { proposed, _, _ in
    ///     var decided = proposed
    ///     decided.storagePolicy = .allowedInMemoryOnly   // this request's response stays in memory
    ///     return decided
    /// }
    /// let response = try await client.send(PipelineRequest(head: request), values: values)
    /// ```
    public enum WillCacheResponseKey: ContextValueKey {
        /// The hook: receives the proposed cached response; returns what to store, or `nil` to veto.
        public typealias Value = WillCacheResponse
    }
}
