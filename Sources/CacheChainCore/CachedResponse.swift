public import Foundation
public import HTTPTypes

/// A response held by the cache: the counterpart of `CachedURLResponse`.
///
/// It carries the response head, its body, typed ``userInfo``, the ``storagePolicy`` chosen for it and the
/// two instants RFC 9111 §4.2.3 needs to compute its age.
public struct CachedResponse: Sendable, Hashable, Codable {
    /// The stored response head (status and fields, exactly as received apart from RFC 9111's updates).
    public var response: HTTPResponse
    /// The stored body.
    public var body: PipelineBody
    /// Application values persisted with the response.
    public var userInfo: CacheUserInfo
    /// Where the response may be kept.
    public var storagePolicy: StoragePolicy
    /// When the request that produced the response was sent.
    public var requestTime: Date
    /// When the response was received.
    public var responseTime: Date

    /// Creates a cached response.
    /// - Parameters:
    ///   - response: The response head.
    ///   - body: The body.
    ///   - userInfo: Application values to persist with it.
    ///   - storagePolicy: Where it may be kept; `.allowed` by default.
    ///   - requestTime: When the request was sent.
    ///   - responseTime: When the response was received; defaults to `requestTime`.
    public init(
        response: HTTPResponse,
        body: PipelineBody,
        userInfo: CacheUserInfo = CacheUserInfo(),
        storagePolicy: StoragePolicy = .allowed,
        requestTime: Date,
        responseTime: Date? = nil
    ) {
        self.response = response
        self.body = body
        self.userInfo = userInfo
        self.storagePolicy = storagePolicy
        self.requestTime = requestTime
        self.responseTime = responseTime ?? requestTime
    }
}
