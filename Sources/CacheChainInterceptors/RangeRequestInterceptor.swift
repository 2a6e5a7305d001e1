public import CacheChainCore
import CacheChainPolicy
import HTTPTypes

/// Answers a single-range `GET` (`Range: bytes=0-499`, `bytes=500-`, `bytes=-500`) from a stored complete,
/// fresh `200` with a `206 Partial Content` and its `Content-Range` (RFC 9110 §14, §15.3.7), or a
/// `416 Range Not Satisfiable` with `Content-Range: bytes */length` when the range lies past the end.
///
/// It sits outside the cache interceptors (the default chain has it just inside the outer interceptors;
/// `HTTPCacheClient.Configuration.isRangeServingEnabled` turns it off). For a range request it first looks
/// the request up as ``CachePolicyInterceptor`` would, with its `Range` and `If-Range` removed and
/// `only-if-cached` added (the same key strategy, storage and RFC 9111 engine, without the network); on a
/// fresh `200` whose body is complete it answers the range itself:
/// ```swift
/// let client = HTTPCacheClient(transport: CurlTransport())
/// _ = try await client.data(for: try HTTPRequest(url: "https://example.com/video.mp4"))  // stored whole
/// var request = try HTTPRequest(url: "https://example.com/video.mp4")
/// request.headerFields[.range] = "bytes=0-1023"
/// let part = try await client.data(for: request)  // 206 from the cache, Content-Range: bytes 0-1023/…
/// ```
///
/// `If-Range` is honoured (§13.1.5): a strongly matching entity tag, or a date equal to a strong
/// `Last-Modified`, gives the range; any other validator gives the whole stored `200`. Everything else is
/// sent to the origin as it is, with no lookup (trace code `range`): several ranges, another unit, invalid
/// syntax, and no fresh complete stored `200`; a `HEAD`, or a request under a cache policy other than
/// `useProtocolCachePolicy`, goes on under its own policy. A `206`
/// the origin answers is never stored (RFC 9111 §3.3's combining of parts is not done), so it never
/// answers a later request as if it were the whole response; a `200` the origin sends instead is stored
/// as usual, and later ranges of it come from the cache.
public struct RangeRequestInterceptor: HTTPInterceptor {
    /// Creates the interceptor.
    public init() {}

    /// Answers the request's range from the cache when it can, otherwise sends the request on unchanged.
    /// - Parameters:
    ///   - request: The request.
    ///   - context: Its context.
    ///   - next: The rest of the chain.
    /// - Returns: A `206` or `416` from the cache, the whole stored `200` when `If-Range` does not match, or
    ///   the inner chain's response.
    /// - Throws: What `next` throws, or `CacheChainError` when a stored body cannot be read.
    public func intercept(_ request: PipelineRequest, context: InterceptorContext, next: Next) async throws -> PipelineResponse {
        guard request.head.method == .get, let field = request.head.headerFields[.range] else {
            return try await next(request, context)
        }
        guard let range = ByteRangeRequest(rangeField: field) else {
            return try await forward(request, context: context, next: next, because: "not a single bytes range")
        }
        guard request.effectiveCachePolicy == .useProtocolCachePolicy else {
            var response = try await next(request, context)
            response.trace.insert(CacheReason(.range, "the cache policy \(request.effectiveCachePolicy) decides: not answered as a range by the cache"), at: 0)
            return response
        }
        guard var stored = await storedFreshResponse(for: request, context: context) else {
            return try await forward(request, context: context, next: next, because: "no fresh stored response")
        }
        if stored.head.status.code == 304 { return stored }  // the application's own validators matched (§13.2.2)
        let length = stored.body.count
        guard stored.head.status.code == 200,
            stored.head.headerFields[.contentLength].map({ Int($0) == length }) ?? true
        else {
            return try await forward(request, context: context, next: next, because: "the stored response is not a complete 200")
        }
        if let validator = request.head.headerFields[.ifRange],
            !ByteRangeRequest.ifRangeAllowsRange(validator, stored: stored.head.headerFields)
        {
            stored.trace.append(CacheReason(.range, "If-Range does not match the stored response: the whole response"))
            return stored
        }
        switch range.selection(inLength: length) {
        case .whole:
            stored.trace.append(CacheReason(.range, "a suffix of an empty body: the whole response"))
            return stored
        case .unsatisfiable:
            var fields = HTTPFields()
            fields[.contentRange] = "bytes */\(length)"
            fields[.contentLength] = "0"
            fields[.date] = stored.head.headerFields[.date]
            stored.head = HTTPResponse(status: .rangeNotSatisfiable, headerFields: fields)
            stored.body = .empty
            stored.trace.append(CacheReason(.range, "\(field) lies outside the stored \(length) bytes: 416"))
            return stored
        case .bytes(let positions):
            stored.body = try stored.body.part(positions.lowerBound..<(positions.upperBound + 1))
            stored.head.status = .partialContent
            stored.head.headerFields[.contentRange] = "bytes \(positions.lowerBound)-\(positions.upperBound)/\(length)"
            stored.head.headerFields[.contentLength] = "\(positions.count)"
            stored.trace.append(CacheReason(.range, "bytes \(positions.lowerBound)-\(positions.upperBound) of the stored \(length)"))
            return stored
        }
    }

    /// The stored response the request, without its range and with `only-if-cached`, gets from the cache:
    /// the key, lookup and RFC 9111 decision ``CachePolicyInterceptor`` makes, asked here once so that
    /// `next` is called at most once (for the request as it is, when there is none). `nil` unless fresh.
    private func storedFreshResponse(for request: PipelineRequest, context: InterceptorContext) async -> PipelineResponse? {
        var probe = request.head
        probe.headerFields[.range] = nil
        probe.headerFields[.ifRange] = nil
        probe.headerFields[.cacheControl] = CacheControlList.appending("only-if-cached", to: probe.headerFields[.cacheControl])
        var engine = context.policyEngine
        guard engine.hostMismatch(of: probe) == nil else { return nil }
        let key = request.cacheLookup?.key ?? context.cacheKeyStrategy.key(for: probe)
        guard let entries = try? await context.storage.entries(for: key, matching: probe), !entries.isEmpty else { return nil }
        engine.varyDigestKey = context.storage.varyDigestKey(for: key)
        let decision = engine.decide(request: probe, policy: .useProtocolCachePolicy, stored: entries.map(\.exchange), now: context.now)
        guard case .useStored(let index, let report, _) = decision, report.isFresh else { return nil }
        let entry = entries[index]
        let head = engine.responseForServing(entry.exchange, currentAge: report.currentAge)
        var response = PipelineResponse(serving: entry, head: head, for: probe, cacheStatus: .hit, trace: decision.reasons)
        if CachePolicyInterceptor.isConditional(probe), let notModified = engine.evaluateConditional(request: probe, servedResponse: response.head) {
            response.head = notModified
            response.body = .empty
        }
        context.events.emit(CacheEvent(.hit, key: key, reasons: decision.reasons.map(\.code.rawValue)))
        return response
    }

    /// Sends the original request to the origin (under `reloadIgnoringLocalCacheData`: no stored response
    /// answers it whole), with the reason first in the trace; the answer is stored by the usual rules.
    private func forward(
        _ request: PipelineRequest, context: InterceptorContext, next: Next, because reason: String
    ) async throws -> PipelineResponse {
        var request = request
        request.cachePolicy = .reloadIgnoringLocalCacheData
        var response = try await next(request, context)
        response.trace.insert(CacheReason(.range, "\(reason): the range request goes to the origin"), at: 0)
        return response
    }
}
