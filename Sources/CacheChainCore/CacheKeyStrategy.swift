public import HTTPTypes

/// How a request maps to its ``CacheKey``.
///
/// The default is ``standard`` (RFC 9111: method and normalized URI). A custom strategy can drop tracking
/// or signing query parameters or fold chosen request fields into the key. Lookup, store and invalidation
/// all use the context's strategy, so they always agree.
public struct CacheKeyStrategy: Sendable {
    private let make: @Sendable (HTTPRequest) -> CacheKey

    /// Creates a strategy from a closure.
    /// - Parameter make: Computes the key of a request.
    public init(_ make: @escaping @Sendable (HTTPRequest) -> CacheKey) {
        self.make = make
    }

    /// RFC 9111's primary key: ``CacheKey/init(_:)``.
    public static var standard: CacheKeyStrategy { CacheKeyStrategy { CacheKey($0) } }

    /// Computes the key of a request.
    /// - Parameter request: The request.
    /// - Returns: Its key.
    public func key(for request: HTTPRequest) -> CacheKey { make(request) }
}
