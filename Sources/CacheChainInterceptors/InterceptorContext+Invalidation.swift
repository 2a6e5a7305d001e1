import CacheChainCore
import CacheChainPolicy
import HTTPTypes

extension InterceptorContext {
    /// RFC 9111 §4.4: after an unsafe request's non-error answer, removes the `GET` entries (with the stored `206`
    /// part, and every `QUERY` entry, whatever its content) of its target URI and
    /// of the answer's same-origin `Location` and `Content-Location` (the policy engine's invalidation targets),
    /// each under the context's key strategy. Each removal is a trace reason and an event; a storage failure is
    /// reported the same way and does not stop the others.
    ///
    /// Then RFC 9875 §3: the groups the answer names in `Cache-Group-Invalidation` (whatever its status) go too,
    /// every stored response of those groups on the request's origin (``CacheStorage/removeEntries(inGroups:origin:)``);
    /// the field is ignored on a safe request's answer and when malformed.
    /// - Parameters:
    ///   - request: The unsafe request.
    ///   - response: Its answer; the removals are appended to its trace.
    func invalidateTargets(of request: HTTPRequest, answeredBy response: inout PipelineResponse) async {
        for target in policyEngine.invalidationTargets(request: request, response: response.head) {
            let key = cacheKeyStrategy.key(for: HTTPRequest(method: .get, scheme: target.scheme, authority: target.authority, path: target.path))
            do {
                try await storage.remove(key)
                try await storage.remove(CachePolicyInterceptor.partialKey(key))  // its stored 206 part, if any
                // The URI's `QUERY` entries too: one key per content, all of them (RFC 10008 §2.7, RFC 9111 §4.4).
                var queries = key
                queries.method = BodyKeyedCachingRule.query.rawValue
                try await storage.removeEntries(sameTargetAs: queries)
                response.trace.append(CacheReason(.invalidated, key.url))
                events.emit(CacheEvent(.invalidated, key: key, reasons: ["unsafe-method"]))
            } catch {
                response.trace.append(CacheReason(.storageError, "invalidation failed: \(error)"))
                events.emit(CacheEvent(.storageError, key: key, reasons: ["invalidate", "\(error)"]))
            }
        }
        await invalidateGroups(of: request, answeredBy: &response)
    }
}

