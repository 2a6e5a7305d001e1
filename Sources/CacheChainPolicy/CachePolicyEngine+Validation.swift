public import FoundationEssentials
public import HTTPTypes

extension CachePolicyEngine {
    /// The conditional `GET` that validates stored responses (RFC 9111 §4.3.1).
    ///
    /// `If-None-Match` lists every stored `ETag` after the application's own tags (an application `*` is
    /// kept as is); `If-Modified-Since` carries the stored `Last-Modified` unless the application set its
    /// own. The method stays `GET` (or `HEAD`): RFC 9111 validates with the request itself, not with the
    /// `HEAD` request Apple's older documents describe.
    /// - Parameters:
    ///   - request: The request being answered.
    ///   - candidates: The stored responses to validate.
    /// - Returns: The request with validators added.
    public func conditionalRequest(for request: HTTPRequest, validating candidates: [StoredExchange]) -> HTTPRequest {
        var conditional = request
        let own = request.headerFields[values: .ifNoneMatch]
        if !own.contains(where: { $0.trimmingOWS() == "*" }) {
            var tags = own.flatMap { EntityTag.parseList($0) }
            for candidate in candidates {
                guard let text = candidate.response.headerFields[.eTag], let tag = EntityTag(parsing: text) else { continue }
                if !tags.contains(tag) { tags.append(tag) }
            }
            if !tags.isEmpty {
                conditional.headerFields[.ifNoneMatch] = tags.map(\.description).joined(separator: ", ")
            }
        }
        if request.headerFields[.ifModifiedSince] == nil,
            let lastModified = candidates.lazy.compactMap({ $0.response.headerFields[.lastModified] })
                .first(where: { HTTPDate.parse($0) != nil })
        {
            conditional.headerFields[.ifModifiedSince] = lastModified
        }
        return conditional
    }

    /// The stored responses a `304 Not Modified` applies to (RFC 9111 §4.3.4).
    ///
    /// A strong `ETag` selects every candidate with the same strong tag; a weak one selects the most
    /// recent candidate with a weakly matching tag; a `Last-Modified` alone selects the most recent
    /// candidate with the same date. A 304 with no validator selects the single candidate when exactly one
    /// was validated (the request carried only that candidate's validators).
    /// - Parameters:
    ///   - notModified: The 304 response head.
    ///   - candidates: The stored responses that were validated.
    /// - Returns: Indices into `candidates`; empty when the 304 matches none (it then answers the
    ///   application's own conditional and is passed through).
    public func selectForFreshening(notModified: HTTPResponse, candidates: [StoredExchange]) -> [Int] {
        let fields = notModified.headerFields
        if let text = fields[.eTag] {
            guard let tag = EntityTag(parsing: text) else { return [] }
            let matching = candidates.indices.filter { index in
                guard let storedText = candidates[index].response.headerFields[.eTag],
                    let stored = EntityTag(parsing: storedText)
                else { return false }
                return tag.isWeak ? tag.weakMatches(stored) : tag.strongMatches(stored)
            }
            return tag.isWeak ? mostRecent(matching, in: candidates) : matching
        }
        if let text = fields[.lastModified], let date = HTTPDate.parse(text) {
            let matching = candidates.indices.filter { index in
                candidates[index].response.headerFields[.lastModified].flatMap(HTTPDate.parse) == date
            }
            return mostRecent(matching, in: candidates)
        }
        return candidates.count == 1 ? [0] : []
    }

    /// A stored response freshened by a 304 (RFC 9111 §3.2, §4.3.4).
    ///
    /// Each field in the 304 replaces the stored field of the same name, except `Content-Length`, the
    /// content-describing fields whose change would contradict the stored body (`Content-Encoding`,
    /// `Content-Type`, `Content-Range`), hop-by-hop fields and fields named in `Connection`. A stored `Age`
    /// is dropped unless the 304 carries one, and a missing `Date` is supplied from `responseTime`, so the
    /// new age is computed from the validation exchange (§4.2.3).
    /// - Parameters:
    ///   - stored: The stored exchange.
    ///   - notModified: The 304 head.
    ///   - requestTime: When the conditional request was sent.
    ///   - responseTime: When the 304 arrived.
    /// - Returns: The freshened exchange.
    public func freshen(
        _ stored: StoredExchange,
        with notModified: HTTPResponse,
        requestTime: Date,
        responseTime: Date
    ) -> StoredExchange {
        var head = stored.response
        let excluded = Self.excludedFromUpdate(notModified)
        var seen: Set<String> = []
        for field in notModified.headerFields {
            let name = field.name.canonicalName
            guard !excluded.contains(name), seen.insert(name).inserted else { continue }
            head.headerFields[values: field.name] = notModified.headerFields[values: field.name]
        }
        if notModified.headerFields[.age] == nil { head.headerFields[.age] = nil }
        if notModified.headerFields[.date].flatMap(HTTPDate.parse) == nil {
            head.headerFields[.date] = HTTPDate.format(responseTime)
        }
        return StoredExchange(request: stored.request, response: head, requestTime: requestTime, responseTime: responseTime)
    }

    /// A stored `GET` response freshened by a `200` answer to `HEAD` (RFC 9111 §4.3.5), or `nil` when the
    /// `HEAD` response contradicts it (a different `ETag`, `Last-Modified` or `Content-Length`), in which
    /// case the stored response must not be reused.
    /// - Parameters:
    ///   - stored: The stored `GET` exchange.
    ///   - headResponse: The `HEAD` response head.
    ///   - requestTime: When the `HEAD` request was sent.
    ///   - responseTime: When its response arrived.
    /// - Returns: The freshened exchange or `nil`.
    public func freshenWithHead(
        _ stored: StoredExchange,
        headResponse: HTTPResponse,
        requestTime: Date,
        responseTime: Date
    ) -> StoredExchange? {
        for name in [HTTPField.Name.eTag, .lastModified, .contentLength] {
            if let new = headResponse.headerFields[name], let old = stored.response.headerFields[name],
                new.trimmingOWS() != old.trimmingOWS()
            {
                return nil
            }
        }
        return freshen(stored, with: headResponse, requestTime: requestTime, responseTime: responseTime)
    }

    /// A response head as it should be stored: without hop-by-hop fields and fields named in `Connection`
    /// (RFC 9111 §3.1).
    /// - Parameter response: The origin's response head.
    /// - Returns: The head to store.
    public func headForStorage(_ response: HTTPResponse) -> HTTPResponse {
        // Most responses carry no hop-by-hop field: stored as they are, without copying their fields.
        guard response.headerFields.contains(where: { Self.hopByHop.contains($0.name.canonicalName) }) else { return response }
        var head = response
        let connectionNamed = Self.connectionNominated(response)
        head.headerFields = HTTPFields(response.headerFields.filter { field in
            let name = field.name.canonicalName
            return !Self.hopByHop.contains(name) && !connectionNamed.contains(name)
        })
        return head
    }

    /// A response head as it should be stored, given a `Date` when it has none: RFC 9110 §6.6.1 has a cache that
    /// stores a response without `Date` add one, the time it received the response; its age is then counted
    /// from there, as for any response.
    ///
    /// ```swift
    /// let stored = CachePolicyEngine().headForStorage(HTTPResponse(status: .ok), receivedAt: Date())
    /// ```
    /// - Parameters:
    ///   - response: The origin's response head.
    ///   - responseTime: When the response was received.
    /// - Returns: ``headForStorage(_:)``'s head, with `Date` set to `responseTime` when the origin sent none.
    public func headForStorage(_ response: HTTPResponse, receivedAt responseTime: Date) -> HTTPResponse {
        var head = headForStorage(response)
        if head.headerFields[.date] == nil { head.headerFields[.date] = HTTPDate.format(responseTime) }
        return head
    }

    // MARK: - Helpers

    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade", "trailer",
        "proxy-authenticate", "proxy-authentication-info", "proxy-authorization",
    ]

    static func connectionNominated(_ response: HTTPResponse) -> Set<String> {
        Set(response.headerFields[values: .connection].flatMap { $0.split(separator: ",") }.map { $0.trimmingOWS().lowercased() })
    }

    static func excludedFromUpdate(_ response: HTTPResponse) -> Set<String> {
        hopByHop.union(connectionNominated(response))
            .union(["content-length", "content-encoding", "content-type", "content-range"])
    }

    private func mostRecent(_ indices: [Int], in candidates: [StoredExchange]) -> [Int] {
        guard let best = indices.max(by: { candidates[$0].responseTime < candidates[$1].responseTime }) else { return [] }
        return [best]
    }
}
