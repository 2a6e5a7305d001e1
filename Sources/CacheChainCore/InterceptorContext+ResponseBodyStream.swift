extension InterceptorContext {
    /// The stream of a caller reading the body as it arrives (`HTTPCacheClient.stream`), or `nil` for a
    /// request whose response is returned whole.
    ///
    /// An interceptor that changes responses on their way back registers the same change for a streamed head
    /// with ``ResponseBodyStream/amendStreamedHead(_:)``: the caller of `stream` sees the head before the
    /// pipeline returns.
    public var responseBodyStream: ResponseBodyStream? { values[ResponseBodyStreamKey.self] }
}
