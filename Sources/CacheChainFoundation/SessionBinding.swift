import CacheChain
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which client answers a session's tasks, read from the session's `urlCache` (see ``CacheChainURLProtocol``).
struct SessionBinding: Sendable {
    let client: HTTPCacheClient
    /// `false` when the session has no `urlCache`: nothing is looked up or stored, as in a session without one.
    let isCaching: Bool

    /// The binding of a session: the client of its ``CacheChainURLCache``, else the shared default client.
    /// - Parameter session: The session, when it could be reached.
    init(session: URLSession?) {
        let urlCache = session?.configuration.urlCache
        if let cache = urlCache as? CacheChainURLCache {
            client = cache.client
            isCaching = true
        } else {
            client = .shared
            isCaching = session == nil || urlCache != nil
        }
    }
}
