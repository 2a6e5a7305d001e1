import CacheChainCore
import CacheChainPolicy
import Foundation
import HTTPTypes

/// Ranges from the cache (``CachePolicyInterceptor/isRangeServingEnabled``): a step of the plan for a single-range
/// `GET` (`Range: bytes=0-499`, `bytes=500-`, `bytes=-500`).
///
/// The request is looked up once as if it had no `Range` and `If-Range` and said `only-if-cached`; on a fresh
/// complete `200` the range is answered from it with a `206 Partial Content` and its `Content-Range` (RFC 9110 §14,
/// §15.3.7), or a `416 Range Not Satisfiable` with `Content-Range: bytes */length` when it lies past the end.
/// `If-Range` is honoured (§13.1.5): a strongly matching entity tag, or a date equal to a strong `Last-Modified`,
/// gives the range; any other validator gives the whole stored `200`. Everything else goes to the origin as it is,
/// with no second lookup (trace code `range`): several ranges, another unit, invalid syntax, and no fresh complete
/// stored `200` nor stored part — unless the request may not use the network (`only-if-cached`), which gets its
/// `504`. A request under a cache policy other than `useProtocolCachePolicy` goes on under its own policy. Without a
/// fresh complete `200`, the key's stored part answers, is continued or is replaced (`servePartial`, in
/// `CachePolicyInterceptor+PartialContent.swift`); a `200` the origin sends is stored as usual, and later ranges
/// of it come from the cache.
/// ```swift
/// let client = HTTPCacheClient(transport: CurlTransport())
/// _ = try await client.data(for: try HTTPRequest(url: "https://example.com/video.mp4"))  // stored whole
/// var request = try HTTPRequest(url: "https://example.com/video.mp4")
/// request.headerFields[.range] = "bytes=0-1023"
/// let part = try await client.data(for: request)  // 206 from the cache, Content-Range: bytes 0-1023/…
/// ```
extension CachePolicyInterceptor {
    func serveRange(_ field: String, inputs: PlanInputs, context: InterceptorContext, next: Next) async throws -> PipelineResponse {
        guard let range = ByteRangeRequest(rangeField: field) else {
            return try await forwardRange(inputs, key: inputs.key(context), context: context, next: next, because: "not a single bytes range")
        }
        guard inputs.request.effectiveCachePolicy == .useProtocolCachePolicy else {
            var inputs = inputs
            let policy = inputs.request.effectiveCachePolicy
            inputs.trace.append(CacheReason(.range, "the cache policy \(policy) decides: not answered as a range by the cache"))
            return try await decideAndAct(inputs, context: context, next: next)
        }
        var probe = inputs
        probe.request.head.headerFields[.range] = nil
        probe.request.head.headerFields[.ifRange] = nil
        let control = probe.request.head.headerFields[.cacheControl]
        probe.request.head.headerFields[.cacheControl] = CacheControlList.appending("only-if-cached", to: control)
        let key = inputs.key(context, for: probe.request.head)
        guard let (entry, reasons, age) = await freshEntry(for: probe, key: key, context: context) else {
            return try await servePartial(range, inputs: inputs, probe: probe, key: key, context: context, next: next)
        }
        context.events.emit(CacheEvent(.hit, key: key, reasons: codes(probe.trace + reasons)))
        var stored = serve(entry, status: .hit, inputs: probe, context: context, trace: probe.trace + reasons, age: age)
        if stored.head.status.code == 304 { return stored }  // the application's own validators matched (§13.2.2)
        let length = stored.body.count
        guard stored.head.status.code == 200,
            stored.head.headerFields[.contentLength].map({ Int($0) == length }) ?? true
        else {
            return try await forwardRange(inputs, key: key, context: context, next: next, because: "the stored response is not a complete 200")
        }
        if let validator = inputs.request.head.headerFields[.ifRange],
            !ByteRangeRequest.ifRangeAllowsRange(validator, stored: stored.head.headerFields)
        {
            stored.trace.append(CacheReason(.range, "If-Range does not match the stored response: the whole response"))
            return stored
        }
        switch range.selection(inLength: length) {
        case .whole:
            stored.trace.append(CacheReason(.range, "a suffix of an empty body: the whole response"))
        case .unsatisfiable:
            var fields = HTTPFields()
            fields[.contentRange] = "bytes */\(length)"
            fields[.contentLength] = "0"
            fields[.date] = stored.head.headerFields[.date]
            stored.head = HTTPResponse(status: .rangeNotSatisfiable, headerFields: fields)
            stored.body = .empty
            stored.trace.append(CacheReason(.range, "\(field) lies outside the stored \(length) bytes: 416"))
        case .bytes(let positions):
            stored.body = try stored.body.part(positions.lowerBound..<(positions.upperBound + 1))
            stored.head.status = .partialContent
            stored.head.headerFields[.contentRange] = "bytes \(positions.lowerBound)-\(positions.upperBound)/\(length)"
            stored.head.headerFields[.contentLength] = "\(positions.count)"
            stored.trace.append(CacheReason(.range, "bytes \(positions.lowerBound)-\(positions.upperBound) of the stored \(length)"))
        }
        return stored
    }

    /// The entry that answers the request without its range and with `only-if-cached` (`probe`) under `key`, as the
    /// usual lookup and decision find it, with the decision's reasons and the entry's age; `nil` unless a fresh
    /// stored response answers it.
    func freshEntry(
        for probe: PlanInputs, key: CacheKey, context: InterceptorContext
    ) async -> (entry: CacheEntry, reasons: [CacheReason], age: TimeInterval)? {
        let head = probe.request.head
        var engine = context.policyEngine
        guard engine.hostMismatch(of: head) == nil else { return nil }
        guard let entries = try? await context.storage.entries(for: key, matching: head), !entries.isEmpty else { return nil }
        engine.varyDigestKey = context.storage.varyDigestKey(for: key)
        let decision = engine.decide(request: head, policy: .useProtocolCachePolicy, stored: entries.map(\.exchange), now: context.now)
        guard case .useStored(let index, let report, _) = decision, report.isFresh else { return nil }
        return (entries[index], decision.reasons, report.currentAge)
    }

    /// Sends the range request to the origin with no further lookup (no stored response answers it whole), the
    /// reason first in the trace; the answer is stored by the usual rules. A request that may not use the network
    /// gets its `504` instead.
    func forwardRange(
        _ inputs: PlanInputs, key: CacheKey, context: InterceptorContext, next: Next, because reason: String
    ) async throws -> PipelineResponse {
        var inputs = inputs
        inputs.trace.insert(CacheReason(.range, "\(reason): the range request goes to the origin"), at: 0)
        if inputs.mayNotLoad {
            inputs.trace[0] = CacheReason(.range, "\(reason) and the request may not use the network")
            context.events.emit(CacheEvent(.miss, key: key, reasons: codes(inputs.trace)))
            return try unsatisfiable(inputs.request, key: key, trace: inputs.trace + [CacheReason(.onlyIfCached, "only-if-cached forbids the network")])
        }
        return try await fetch(inputs, Flight(plan: inputs.plan(key: key), epoch: nil, fallback: .none), context: context, next: next, trace: inputs.trace)
    }
}
