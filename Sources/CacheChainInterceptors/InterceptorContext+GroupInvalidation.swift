import CacheChainCore
import CacheChainPolicy
import HTTPTypes

extension InterceptorContext {
    /// RFC 9875 §3: removes every stored response on the request's origin that belongs to a group the answer
    /// names in `Cache-Group-Invalidation`; nothing after a safe request or for a malformed field. The origin is
    /// the one of the request's key under the context's key strategy. The removal is a trace reason
    /// (`invalidated`, `group "a" on https://example.com`) and an `invalidated` event with the reason
    /// `cache-group`; a storage failure is reported the same way and never fails the request.
    /// - Parameters:
    ///   - request: The request.
    ///   - response: Its answer; the removal is appended to its trace.
    func invalidateGroups(of request: HTTPRequest, answeredBy response: inout PipelineResponse) async {
        let groups = policyEngine.invalidatedGroups(request: request, response: response.head)
        guard !groups.isEmpty else { return }
        var probe = request
        probe.method = .get
        let key = cacheKeyStrategy.key(for: probe)
        let origin = key.origin
        let named = groups.map { "\"\($0)\"" }.joined(separator: ", ")
        do {
            try await storage.removeEntries(inGroups: groups, origin: origin)
            response.trace.append(CacheReason(.invalidated, "cache group \(named) on \(origin)"))
            events.emit(CacheEvent(.invalidated, key: key, reasons: ["cache-group"] + groups))
        } catch {
            response.trace.append(CacheReason(.storageError, "group invalidation failed: \(error)"))
            events.emit(CacheEvent(.storageError, key: key, reasons: ["invalidate-group", "\(error)"]))
        }
    }
}
