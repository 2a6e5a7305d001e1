public import CacheChainCore
public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif
import HTTPTypes
import HTTPTypesFoundation

extension CachedResponse {
    /// A `CachedURLResponse` with the same response, data and storage policy, for code written against URLCache.
    ///
    /// `userInfo` holds the property-list values stored through Foundation (``init(_:requestTime:)``,
    /// `CacheChainURLCache`), and CacheChain's own typed values as `[name: JSON text]`, since Foundation's
    /// dictionary is untyped. Repeated response fields are joined with `, ` by `HTTPURLResponse` (its
    /// `allHeaderFields` cannot hold duplicates).
    /// - Parameter url: The URL the response answers.
    /// - Returns: The Foundation value, or `nil` when `url` is not a valid response URL or a file-backed body
    ///   cannot be read (`CachedURLResponse` holds its data in memory).
    public func cachedURLResponse(for url: URL) -> CachedURLResponse? {
        guard let http = HTTPURLResponse(httpResponse: response, url: url), let data = try? body.collect() else {
            return nil
        }
        let info = userInfo.foundationUserInfo
        return CachedURLResponse(
            response: http,
            data: Data(data),
            userInfo: info.isEmpty ? nil : info,
            storagePolicy: storagePolicy.urlCacheStoragePolicy
        )
    }

    /// Creates a cached response from a `CachedURLResponse`.
    ///
    /// Its `userInfo` is carried over when its keys are strings and its values property-list types (`String`,
    /// numbers, `Bool`, `Date`, `Data`, arrays and dictionaries of them): they are persisted with the entry as
    /// one binary property list and come back in ``cachedURLResponse(for:)``. Other entries cannot be persisted
    /// and are left out.
    /// - Parameters:
    ///   - cachedURLResponse: Foundation's value; its response must be an `HTTPURLResponse`.
    ///   - requestTime: When the request was sent; the response's `Date` header is not trusted for this.
    /// - Returns: `nil` when the response is not HTTP.
    public init?(_ cachedURLResponse: CachedURLResponse, requestTime: Date) {
        guard let http = cachedURLResponse.response as? HTTPURLResponse, let head = http.httpResponse else {
            return nil
        }
        var userInfo = CacheUserInfo()
        userInfo.setFoundationUserInfo(cachedURLResponse.userInfo)
        self.init(
            response: head,
            body: PipelineBody(cachedURLResponse.data),
            userInfo: userInfo,
            storagePolicy: StoragePolicy(cachedURLResponse.storagePolicy),
            requestTime: requestTime
        )
    }
}
