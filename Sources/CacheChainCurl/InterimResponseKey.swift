public import CacheChainCore
public import HTTPTypes

/// The context key of a handler that ``CurlTransport`` calls with each interim (1xx) response as it arrives,
/// before the final response: a `103 Early Hints` whose `Link` fields name resources to preload while the
/// origin is still preparing its answer, a `100 Continue`, a `102 Processing`.
///
/// The same responses are on the final response's `PipelineResponse.interimResponses` once it arrives; the
/// handler is for acting on them earlier. It runs on the transport's libcurl thread, in the middle of the
/// transfer: it must return quickly and must not block. Interim responses are never stored, so a response
/// served from the cache calls it not at all.
///
/// ```swift
/// var values = ContextValues()
/// values[InterimResponseKey.self] = { interim in
///     if interim.status.code == 103 { print("early hints:", interim.headerFields) }
/// }
/// let response = try await client.send(PipelineRequest(head: request), values: values)
/// print(response.interimResponses.map(\.status.code))   // [103]
/// ```
public enum InterimResponseKey: ContextValueKey {
    /// The handler.
    public typealias Value = @Sendable (HTTPResponse) -> Void
}
