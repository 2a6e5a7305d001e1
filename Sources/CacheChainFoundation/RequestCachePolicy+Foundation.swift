public import CacheChainPolicy
import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

extension RequestCachePolicy {
    /// The CacheChain policy for a `URLRequest.CachePolicy`, one to one (CacheChain implements all six).
    /// - Parameter policy: Foundation's policy.
    public init(_ policy: URLRequest.CachePolicy) {
        switch policy {
        case .useProtocolCachePolicy: self = .useProtocolCachePolicy
        case .reloadIgnoringLocalCacheData: self = .reloadIgnoringLocalCacheData
        case .reloadIgnoringLocalAndRemoteCacheData: self = .reloadIgnoringLocalAndRemoteCacheData
        case .returnCacheDataElseLoad: self = .returnCacheDataElseLoad
        case .returnCacheDataDontLoad: self = .returnCacheDataDontLoad
        case .reloadRevalidatingCacheData: self = .reloadRevalidatingCacheData
        @unknown default: self = .useProtocolCachePolicy
        }
    }

    /// Foundation's spelling of this policy.
    public var urlRequestCachePolicy: URLRequest.CachePolicy {
        switch self {
        case .useProtocolCachePolicy: .useProtocolCachePolicy
        case .reloadIgnoringLocalCacheData: .reloadIgnoringLocalCacheData
        case .reloadIgnoringLocalAndRemoteCacheData: .reloadIgnoringLocalAndRemoteCacheData
        case .returnCacheDataElseLoad: .returnCacheDataElseLoad
        case .returnCacheDataDontLoad: .returnCacheDataDontLoad
        case .reloadRevalidatingCacheData: .reloadRevalidatingCacheData
        }
    }
}
