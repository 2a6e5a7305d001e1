import CacheChainCore
import CacheChainInterceptors
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import HTTPTypesFoundation

extension SessionDelegateCalls {
    /// The pipeline's `willCacheResponse` hook for this task: the storage decision proposes the response it is
    /// about to store, as a `CachedURLResponse`, to the delegate's
    /// `urlSession(_:dataTask:willCacheResponse:completionHandler:)`, and stores what the delegate hands back.
    ///
    /// The delegate is asked about the task's response, not about the redirects followed on the way (each hop is
    /// stored by the pipeline's rules, as Apple's loader stores redirects without asking).
    var storageHook: StorageDecisionInterceptor.WillCacheResponse {
        let calls = self
        return { proposal, request, _ in
            guard !RedirectRules.isRedirect(proposal.response.status.code), let url = request.head.url else { return proposal }
            switch await calls.willCacheResponse(proposing: { proposal.cachedURLResponse(for: url) }) {
            case .keep: return proposal
            case .veto: return nil
            case .replace(let proposed, let decided): return proposal.adopting(decided, over: proposed)
            }
        }
    }
}

extension CachedResponse {
    /// This proposal changed as the delegate changed `proposed` into `decided`: its storage policy and `userInfo`,
    /// and its body or response when the delegate replaced them.
    /// - Parameters:
    ///   - decided: What the delegate handed back.
    ///   - proposed: What it was given.
    /// - Returns: What to store.
    func adopting(_ decided: CachedURLResponse, over proposed: CachedURLResponse) -> CachedResponse {
        var result = self
        result.storagePolicy = StoragePolicy(decided.storagePolicy)
        result.userInfo.setFoundationUserInfo(decided.userInfo)
        if decided.data != proposed.data { result.body = PipelineBody(decided.data) }
        let decidedHead = (decided.response as? HTTPURLResponse)?.httpResponse
        if let decidedHead, decidedHead != (proposed.response as? HTTPURLResponse)?.httpResponse {
            result.response = decidedHead
        }
        return result
    }
}
