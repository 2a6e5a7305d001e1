import CacheChainCore
import CacheChainPolicy
import HTTPTypes

extension PipelineResponse {
    /// The response that serves a stored entry with `head`: its body (none for a `HEAD` request) and its `userInfo`.
    init(serving entry: CacheEntry, head: HTTPResponse, for request: HTTPRequest, cacheStatus: CacheStatus, trace: [CacheReason]) {
        let body: PipelineBody = request.method == .head ? .empty : entry.cached.body
        self.init(head: head, body: body, cacheStatus: cacheStatus, trace: trace, userInfo: entry.cached.userInfo)
    }
}
