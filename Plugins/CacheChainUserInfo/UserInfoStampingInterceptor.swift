public import CacheChainCore
import Foundation
import HTTPTypes

/// Stamps `userInfo` values onto every response that gets stored — the date it was cached, a request id,
/// anything a closure computes — as Apple's Listing 7-1 does with "Cached Date".
///
/// The values are left in the context under `PendingUserInfoKey`; the `StorageDecisionInterceptor`
/// merges them into the stored `CachedResponse`, so they are persisted with the entry on every backend
/// and come back on later hits in `PipelineResponse.userInfo`. Place it anywhere outside the storage
/// decision (outermost by default).
public struct UserInfoStampingInterceptor: HTTPInterceptor {
    /// Computes the values to stamp for a request.
    public typealias Stamp = @Sendable (PipelineRequest, InterceptorContext) -> CacheUserInfo

    private let stamp: Stamp

    /// Creates a stamping interceptor from a closure.
    /// - Parameter stamp: Computes the values for a request.
    public init(_ stamp: @escaping Stamp) {
        self.stamp = stamp
    }

    /// Stamps the date the response was cached under ``CachedDateKey``.
    /// - Returns: The interceptor.
    public static func cachedDate() -> UserInfoStampingInterceptor {
        UserInfoStampingInterceptor { _, context in
            var info = CacheUserInfo()
            info[CachedDateKey.self] = context.now
            return info
        }
    }

    /// Stamps a request id under ``RequestIDKey``, read from a request field (default `X-Request-ID`) or generated.
    /// - Parameter fieldName: The request field holding the id.
    /// - Returns: The interceptor.
    public static func requestID(fieldName: String = "X-Request-ID") -> UserInfoStampingInterceptor {
        UserInfoStampingInterceptor { request, _ in
            var info = CacheUserInfo()
            let fromRequest = request.head.headerFields.first { $0.name.rawName.lowercased() == fieldName.lowercased() }
            info[RequestIDKey.self] = fromRequest?.value ?? UUID().uuidString
            return info
        }
    }

    /// Adds the stamped values to the context and calls `next`.
    /// - Parameters:
    ///   - request: The request.
    ///   - context: Its context.
    ///   - next: The rest of the chain.
    /// - Returns: The chain's response.
    /// - Throws: The chain's error.
    public func intercept(
        _ request: PipelineRequest,
        context: InterceptorContext,
        next: Next
    ) async throws -> PipelineResponse {
        var inner = context
        var pending = context.values[PendingUserInfoKey.self] ?? CacheUserInfo()
        pending.merge(stamp(request, context))
        inner.values[PendingUserInfoKey.self] = pending
        return try await next(request, inner)
    }
}
