public import CacheChainCore
import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

extension StoragePolicy {
    /// The CacheChain storage policy for a `URLCache.StoragePolicy`.
    /// - Parameter policy: Foundation's storage policy.
    public init(_ policy: URLCache.StoragePolicy) {
        switch policy {
        case .allowed: self = .allowed
        case .allowedInMemoryOnly: self = .allowedInMemoryOnly
        case .notAllowed: self = .notAllowed
        @unknown default: self = .notAllowed
        }
    }

    /// Foundation's spelling of this storage policy.
    public var urlCacheStoragePolicy: URLCache.StoragePolicy {
        switch self {
        case .allowed: .allowed
        case .allowedInMemoryOnly: .allowedInMemoryOnly
        case .notAllowed: .notAllowed
        }
    }
}
