import CacheChainCore
import CacheChainPolicy
import Foundation
import HTTPTypes

/// Stored parts (RFC 9111 §3.3–3.4): the range step's answer when no fresh complete `200` answers a single-range
/// `GET` (``CachePolicyInterceptor/serveRange(_:inputs:context:next:)``).
///
/// A key has at most one part: a contiguous span `bytes first-last/length` of one representation, stored under
/// the request's key with the discriminator `partial-content` (``partialKey(_:)``), so a request without `Range`
/// never looks it up. A `206` from the origin becomes the part when it is a single range with a known complete
/// length, carries a strong validator (an `ETag` that is not `W/`, or a strong `Last-Modified`) and is storable as
/// its `200` would be; a `multipart/byteranges` answer, `bytes a-b/*` and weak or missing validators are never
/// stored. A new part with the same validator that overlaps or touches the stored one is combined with it; any
/// other replaces it. Once the part is the whole representation it is stored as a complete `200` under the
/// request's key, and the part is removed.
extension CachePolicyInterceptor {
    /// The key a request's stored part lives under: its key with `partial-content` added to the discriminator.
    static func partialKey(_ key: CacheKey) -> CacheKey {
        var part = key
        part.discriminator += (part.discriminator.isEmpty ? "" : " ") + "partial-content"
        return part
    }

    /// A stored or received part: its range and strong validator.
    struct Part {
        var range: ContentRange
        var validator: String

        /// `nil` unless the head is a `206` of one known-length byte range of `count` bytes with a strong validator.
        init?(_ head: HTTPResponse, count: Int) {
            guard head.status.code == 206, let text = head.headerFields[.contentRange], let range = ContentRange(field: text),
                range.count == count, let validator = ContentRange.strongValidator(of: head.headerFields)
            else { return nil }
            self.range = range
            self.validator = validator
        }
    }

    /// Answers `range` from the stored part when it covers it (status `hit`); asks the origin only for the rest
    /// when the part covers its start (`Range: bytes=last+1-` with `If-Range`); otherwise sends the request on and
    /// keeps the `206` that comes back.
    func servePartial(
        _ range: ByteRangeRequest, inputs: PlanInputs, probe: PlanInputs, key: CacheKey, context: InterceptorContext, next: Next
    ) async throws -> PipelineResponse {
        let partKey = Self.partialKey(key)
        guard let (entry, reasons, age) = await freshEntry(for: probe, key: partKey, context: context),
            let part = Part(entry.cached.response, count: entry.cached.body.count)
        else {
            return try await fetchPart(inputs, key: key, existing: nil, context: context, next: next, because: "no fresh stored response")
        }
        if let validator = inputs.request.head.headerFields[.ifRange],
            !ByteRangeRequest.ifRangeAllowsRange(validator, stored: entry.cached.response.headerFields)
        {
            var whole = inputs  // §13.1.5: the whole representation, which only the origin has
            whole.request.head.headerFields[.range] = nil
            whole.request.head.headerFields[.ifRange] = nil
            whole.trace.append(CacheReason(.range, "If-Range does not match the stored part: the whole response"))
            return try await decideAndAct(whole, context: context, next: next)
        }
        let stored = part.range
        guard case .bytes(let wanted) = range.selection(inLength: stored.completeLength) else {
            return try await fetchPart(inputs, key: key, existing: entry, context: context, next: next, because: "the range is not inside the stored part's length")
        }
        if stored.first <= wanted.lowerBound, wanted.upperBound <= stored.last {
            context.events.emit(CacheEvent(.hit, key: partKey, reasons: codes(probe.trace + reasons)))
            let served = serve(entry, status: .hit, inputs: probe, context: context, trace: probe.trace + reasons, age: age)
            guard served.head.status.code == 206 else { return served }  // the application's validators matched: 304
            return try Self.sliced(served, holding: stored, to: wanted)
        }
        guard stored.first <= wanted.lowerBound, wanted.lowerBound <= stored.last + 1, !inputs.mayNotLoad else {
            return try await fetchPart(
                inputs, key: key, existing: entry, context: context, next: next,
                because: "the stored part \(stored.fieldValue) does not cover bytes \(wanted.lowerBound)-\(wanted.upperBound)"
            )
        }
        return try await continuePart(entry, part: part, wanted: wanted, inputs: inputs, key: key, context: context, next: next)
    }

    /// Asks the origin for the bytes after the stored part (`Range: bytes=last+1-`, `If-Range: validator`): a `206`
    /// with the same validator is combined with the part (RFC 9111 §3.4); a `200` (the representation changed) is
    /// stored by the storage decision and replaces the part; a `206` with another validator
    /// goes up as it is (its `Content-Range` says which bytes it holds) and replaces the part — bytes of two
    /// representations are never mixed, and the origin is asked once (`next` is called at most once).
    private func continuePart(
        _ entry: CacheEntry, part: Part, wanted: ClosedRange<Int>, inputs: PlanInputs, key: CacheKey, context: InterceptorContext, next: Next
    ) async throws -> PipelineResponse {
        let stored = part.range
        var rest = inputs
        rest.request.head.headerFields[.range] = "bytes=\(stored.last + 1)-"
        rest.request.head.headerFields[.ifRange] = part.validator
        rest.trace.append(CacheReason(.range, "the stored part \(stored.fieldValue) covers the start: bytes=\(stored.last + 1)- asked with If-Range"))
        let response = try await fetch(rest, Flight(plan: rest.plan(key: key), epoch: nil, fallback: .none), context: context, next: next, trace: rest.trace)
        switch response.head.status.code {
        case 206:
            let body = try response.body.collect()
            guard let got = Part(response.head, count: body.count), got.validator == part.validator,
                got.range.completeLength == stored.completeLength, got.range.first >= stored.first, got.range.first <= stored.last + 1
            else {
                // Another representation (an origin that ignores If-Range): its 206 goes up as it is, and replaces the part.
                var answer = response
                answer.body = PipelineBody(body)
                answer.trace.append(CacheReason(.range, "the continuation's validator or range does not match the stored part: not combined, the part replaced"))
                try? await context.storage.remove(Self.partialKey(key))
                return try await keptPart(answer, bytes: body, existing: nil, inputs: inputs, key: key, context: context)
            }
            let old = try entry.cached.body.collect()
            let combined = ContentRange(first: stored.first, last: got.range.last, completeLength: stored.completeLength)
            let bytes = Array(old[0..<(got.range.first - stored.first)]) + body
            var answer = response
            answer.head.headerFields[.contentRange] = combined.fieldValue
            answer.body = PipelineBody(bytes)
            answer.trace.append(CacheReason(.range, "combined with the stored part: \(combined.fieldValue)"))
            await keep(bytes, as: combined, head: response.head, inputs: inputs, key: key, context: context, trace: &answer.trace)
            let served = min(wanted.upperBound, combined.last)
            return try Self.sliced(answer, holding: combined, to: wanted.lowerBound...served)
        case 200:
            try? await context.storage.remove(Self.partialKey(key))
            var answer = response
            answer.trace.append(CacheReason(.range, "the origin sent the whole representation: the stored part is dropped"))
            return answer
        default:
            return response
        }
    }

    /// Sends the range request on as it is and keeps a storable `206` answer as the key's part, combined with the
    /// `existing` part when both have the same validator and touch or overlap.
    private func fetchPart(
        _ inputs: PlanInputs, key: CacheKey, existing: CacheEntry?, context: InterceptorContext, next: Next, because reason: String
    ) async throws -> PipelineResponse {
        let response = try await forwardRange(inputs, key: key, context: context, next: next, because: reason)
        guard response.head.status.code == 206, response.cacheStatus != .unsatisfiable else { return response }
        return try await keptPart(response, bytes: try response.body.collect(), existing: existing, inputs: inputs, key: key, context: context)
    }

    /// Keeps a `206` from the origin (its body `bytes`) as the key's part when it may be stored, combined with the
    /// `existing` part when both have the same validator and touch or overlap; the answer carries the body buffered.
    private func keptPart(
        _ response: PipelineResponse, bytes body: [UInt8], existing: CacheEntry?, inputs: PlanInputs, key: CacheKey, context: InterceptorContext
    ) async throws -> PipelineResponse {
        var response = response
        guard let got = Part(response.head, count: body.count) else {
            response.trace.append(CacheReason(.range, "the 206 is not stored: not one byte range of known length with a strong validator"))
            return response
        }
        var range = got.range
        var bytes = body
        if let existing, let old = Part(existing.cached.response, count: existing.cached.body.count), old.validator == got.validator,
            old.range.completeLength == range.completeLength, old.range.first <= range.last + 1, range.first <= old.range.last + 1
        {
            let oldBytes = try existing.cached.body.collect()
            let first = min(old.range.first, range.first), last = max(old.range.last, range.last)
            var union = [UInt8](repeating: 0, count: last - first + 1)
            union.replaceSubrange((old.range.first - first)...(old.range.last - first), with: oldBytes)
            union.replaceSubrange((range.first - first)...(range.last - first), with: body)
            range = ContentRange(first: first, last: last, completeLength: range.completeLength)
            bytes = union
            response.trace.append(CacheReason(.range, "combined with the stored part: \(range.fieldValue)"))
        }
        await keep(bytes, as: range, head: response.head, inputs: inputs, key: key, context: context, trace: &response.trace)
        response.body = PipelineBody(body)
        return response
    }

    /// Stores a part (or, when it is the whole representation, the complete `200`, removing the part) when the
    /// response is storable as its `200` would be and the request may store; the outcome goes to the trace.
    private func keep(
        _ bytes: [UInt8], as range: ContentRange, head: HTTPResponse, inputs: PlanInputs, key: CacheKey, context: InterceptorContext,
        trace: inout [CacheReason]
    ) async {
        var request = inputs.request.head
        request.headerFields[.range] = nil
        request.headerFields[.ifRange] = nil
        var whole = head
        whole.status = .ok
        let verdict = context.policyEngine.storability(request: request, response: whole)
        var policy = StoragePolicy.allowed
        if case .capped(let cap)? = inputs.request.storageLimit { policy = policy.capped(at: cap) }
        guard inputs.request.storageLimit != .refused, policy != .notAllowed, inputs.responseOverride?.isNeverCache != true,
            verdict.isStorable
        else {
            trace.append(CacheReason(.range, "the part is not stored: \(verdict.reasons.first?.detail ?? "this request does not store")"))
            return
        }
        let partKey = Self.partialKey(key)
        var stored = head
        stored.headerFields[.contentLength] = "\(bytes.count)"
        if range.isComplete {
            stored.status = .ok
            stored.headerFields[.contentRange] = nil
        } else {
            stored.headerFields[.contentRange] = range.fieldValue
        }
        let target = range.isComplete ? key : partKey
        let now = context.now
        let cached = CachedResponse(response: context.policyEngine.headForStorage(stored, receivedAt: now), body: PipelineBody(bytes), storagePolicy: policy, requestTime: now)
        let entry = CacheEntry(key: target, request: request, cached: cached, storedAt: now, varyDigestKey: context.storage.varyDigestKey(for: target))
        do {
            if range.isComplete { try await context.storage.remove(partKey) }
            try await context.storage.store(entry)
            trace.append(CacheReason(.storable, range.isComplete ? "the parts make the whole: stored as a complete 200" : "part stored: \(range.fieldValue)"))
            context.events.emit(CacheEvent(.stored, key: target, reasons: ["range"], bytes: entry.cost))
        } catch {
            trace.append(CacheReason(.storageError, "store failed: \(error)"))
            context.events.emit(CacheEvent(.storageError, key: target, reasons: ["store", "\(error)"]))
        }
    }

    /// A `206` holding `holding` cut down to `positions`.
    static func sliced(_ response: PipelineResponse, holding: ContentRange, to positions: ClosedRange<Int>) throws -> PipelineResponse {
        var answer = response
        answer.body = try response.body.part((positions.lowerBound - holding.first)..<(positions.upperBound - holding.first + 1))
        answer.head.status = .partialContent
        answer.head.headerFields[.contentRange] = "bytes \(positions.lowerBound)-\(positions.upperBound)/\(holding.completeLength)"
        answer.head.headerFields[.contentLength] = "\(positions.count)"
        answer.trace.append(CacheReason(.range, "bytes \(positions.lowerBound)-\(positions.upperBound) of the stored part \(holding.fieldValue)"))
        return answer
    }
}
