public import Foundation
public import CacheChainCore

/// The date a response was stored, stamped by ``UserInfoStampingInterceptor/cachedDate()``.
public enum CachedDateKey: CacheUserInfoKey {
    /// The date.
    public typealias Value = Date
    /// Persisted as `cached-date`.
    public static let name = "cached-date"
}

/// The id of the request that stored a response, stamped by ``UserInfoStampingInterceptor/requestID(fieldName:)``.
public enum RequestIDKey: CacheUserInfoKey {
    /// The id.
    public typealias Value = String
    /// Persisted as `request-id`.
    public static let name = "request-id"
}
