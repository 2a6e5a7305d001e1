public import CacheChainPolicy
public import Foundation
public import HTTPTypes

extension CacheEntry {
    /// The entry freshened by a `304 Not Modified` (RFC 9111 §4.3.4): the one place a validation's answer
    /// merges into a stored entry.
    ///
    /// The engine merges the 304's fields into the stored head (`CachePolicyEngine.freshen(_:with:requestTime:responseTime:)`);
    /// the entry keeps its key, variant, body, `userInfo` and storage policy, and takes the validation
    /// exchange's request and response times, so its age starts again from the 304.
    /// - Parameters:
    ///   - notModified: The 304 head.
    ///   - engine: The policy engine whose rules merge the fields.
    ///   - requestTime: When the conditional request was sent.
    ///   - responseTime: When the 304 arrived.
    /// - Returns: The freshened entry.
    public func freshened(
        by notModified: HTTPResponse,
        engine: CachePolicyEngine,
        requestTime: Date,
        responseTime: Date
    ) -> CacheEntry {
        replacingHead(with: engine.freshen(exchange, with: notModified, requestTime: requestTime, responseTime: responseTime))
    }

    /// The stored `GET` entry freshened by a `200` answer to `HEAD` (RFC 9111 §4.3.5), or `nil` when the
    /// `HEAD` response contradicts it and the entry must not be reused.
    /// - Parameters:
    ///   - headResponse: The `HEAD` response head.
    ///   - engine: The policy engine whose rules compare and merge the fields.
    ///   - requestTime: When the `HEAD` request was sent.
    ///   - responseTime: When its response arrived.
    /// - Returns: The freshened entry, or `nil` when it is contradicted.
    public func freshened(
        byHeadResponse headResponse: HTTPResponse,
        engine: CachePolicyEngine,
        requestTime: Date,
        responseTime: Date
    ) -> CacheEntry? {
        engine.freshenWithHead(exchange, headResponse: headResponse, requestTime: requestTime, responseTime: responseTime)
            .map(replacingHead(with:))
    }

    /// The entry with the response head and times of a freshened exchange.
    private func replacingHead(with freshened: StoredExchange) -> CacheEntry {
        var entry = self
        var cached = entry.cached
        cached.response = freshened.response
        cached.requestTime = freshened.requestTime
        cached.responseTime = freshened.responseTime
        entry.cached = cached
        return entry
    }
}
