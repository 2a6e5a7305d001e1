public import CacheChain
import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

extension URLSessionConfiguration {
    /// A copy of this configuration whose requests are answered by a CacheChain client: the one line that
    /// makes `URLSession` code cache on Linux.
    ///
    /// ```swift
    /// import CacheChain
    /// import CacheChainCurl
    /// import CacheChainFoundation
    /// import FoundationNetworking
    ///
    /// let client = HTTPCacheClient(transport: CurlTransport())
    /// let session = URLSession(configuration: .default.usingCacheChain(client))
    /// ```
    ///
    /// The copy's `protocolClasses` put ``CacheChainURLProtocol`` first (the other classes stay after it, for the
    /// schemes it does not answer) and its `urlCache` is a ``CacheChainURLCache`` over `client`, which is how the
    /// protocol finds the client: the session's `URLCache` calls and its requests then read and write the same
    /// entries. If the configuration's `urlCache` already is a ``CacheChainURLCache`` over the same storage it is
    /// kept. Setting the copy's `urlCache` to another ``CacheChainURLCache`` afterwards switches the session to
    /// that cache's client; setting it to `nil` makes the session use the network only, as a session without a
    /// cache. Every other setting (timeouts, `requestCachePolicy`, `httpAdditionalHeaders`, cookies) is kept and
    /// honoured.
    /// - Parameter client: The client whose pipeline and storage answer the session's `http` and `https` data
    ///   tasks (e.g. `HTTPCacheClient.shared`, `HTTPCacheClient.ephemeral(memoryCapacity:transport:)`, or
    ///   one with encrypted storage).
    /// - Returns: The configured copy; this configuration is unchanged.
    public func usingCacheChain(_ client: HTTPCacheClient) -> URLSessionConfiguration {
        guard let copy = self.copy() as? URLSessionConfiguration else { return self }
        let others = (protocolClasses ?? []).filter { ObjectIdentifier($0) != ObjectIdentifier(CacheChainURLProtocol.self) }
        copy.protocolClasses = [CacheChainURLProtocol.self] + others
        if let current = urlCache as? CacheChainURLCache, current.client.isSameClient(as: client) {
            copy.urlCache = current
        } else {
            copy.urlCache = CacheChainURLCache(client: client)
        }
        return copy
    }
}

extension HTTPCacheClient {
    /// Whether two values are copies of one client (created by the same initializer call).
    func isSameClient(as other: HTTPCacheClient) -> Bool {
        revalidationQueue === other.revalidationQueue
    }
}
