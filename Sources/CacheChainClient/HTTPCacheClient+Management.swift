public import CacheChainCore
import CacheChainPolicy
public import Foundation
public import HTTPTypes

/// URLCache's management API, over whatever backend the client uses.
extension HTTPCacheClient {
    /// The stored response that matches a request (its `Vary` variant), whatever its freshness:
    /// `URLCache.cachedResponse(for:)`.
    /// - Parameter request: The request.
    /// - Returns: The cached response, or `nil`.
    /// - Throws: A storage error.
    public func cachedResponse(for request: HTTPRequest) async throws -> CachedResponse? {
        let key = configuration.cacheKeyStrategy.key(for: request)
        let entries = try await configuration.storage.entries(for: key, matching: request)
        let engine = CachePolicyEngine(
            configuration: configuration.policy, varyDigestKey: configuration.storage.varyDigestKey(for: key)
        )
        return engine.selectVariant(for: request, among: entries.map(\.exchange)).map { entries[$0].cached }
    }

    /// Stores a response for a request, as `URLCache.storeCachedResponse(_:for:)` does: no HTTP rule is
    /// applied, only the response's `CachedResponse.storagePolicy`.
    /// - Parameters:
    ///   - cachedResponse: The response to store.
    ///   - request: The request it answers.
    /// - Throws: A storage error.
    public func storeCachedResponse(_ cachedResponse: CachedResponse, for request: HTTPRequest) async throws {
        guard cachedResponse.storagePolicy != .notAllowed else { return }
        let key = configuration.cacheKeyStrategy.key(for: request)
        try await configuration.storage.store(
            CacheEntry(
                key: key, request: request, cached: cachedResponse, storedAt: configuration.clock.now(),
                varyDigestKey: configuration.storage.varyDigestKey(for: key)
            )
        )
    }

    /// Removes every stored variant for a request's key: `URLCache.removeCachedResponse(for:)`.
    /// - Parameter request: The request.
    /// - Throws: A storage error.
    public func removeCachedResponse(for request: HTTPRequest) async throws {
        try await configuration.storage.remove(configuration.cacheKeyStrategy.key(for: request))
    }

    /// Removes every response stored at or after a date: `URLCache.removeCachedResponses(since:)`.
    /// - Parameter date: The earliest storage date to remove.
    /// - Throws: A storage error.
    public func removeCachedResponses(since date: Date) async throws {
        try await configuration.storage.removeEntries(storedSince: date)
    }

    /// Removes every stored response that is stale now (by the client's clock and policy) and has been for
    /// at least `olderThan`: housekeeping, as `cachechain purge --expired` and `--stale-older-than` do.
    ///
    /// A stale response with a validator still saves a download (a 304); keep those a while with `olderThan`.
    /// - Parameter olderThan: How long a response must have been stale; every stale response by default.
    /// - Returns: The number of stored variants removed.
    /// - Throws: A storage error.
    @discardableResult
    public func removeExpiredResponses(olderThan: Duration = .zero) async throws -> Int {
        try await configuration.storage.removeExpired(
            now: configuration.clock.now(), olderThan: olderThan, policy: configuration.policy
        )
    }

    /// Removes every stored response: `URLCache.removeAllCachedResponses()`.
    /// - Throws: A storage error.
    public func removeAllCachedResponses() async throws {
        try await configuration.storage.removeAll()
    }

    /// Removes every response whose URL starts with a prefix (e.g. `https://api.example.com/users/42/`).
    /// - Parameter urlPrefix: The prefix, compared with `CacheKey.url`.
    /// - Throws: A storage error.
    public func removeCachedResponses(urlPrefix: String) async throws {
        try await configuration.storage.removeEntries(urlPrefix: urlPrefix)
    }

    /// Removes every stored response of cache groups on an origin (RFC 9875): those whose `Cache-Groups` names one
    /// of `groups`, as a `Cache-Group-Invalidation` from that origin would, and as `cachechain purge --group` does.
    ///
    /// ```swift
    /// try await client.removeCachedResponses(inGroups: ["articles"], origin: "https://news.example")
    /// ```
    /// - Parameters:
    ///   - groups: The group names, compared character by character (case-sensitive).
    ///   - origin: The origin, or any absolute URL on it (`https://news.example:443/x` names
    ///     `https://news.example`): groups are scoped to an origin.
    /// - Throws: `CacheChainError` (`invalid-configuration`) when `origin` has no scheme and host; a storage error.
    public func removeCachedResponses(inGroups groups: [String], origin: String) async throws {
        guard let normalized = CacheKey.origin(ofURL: origin) else {
            throw CacheChainError(
                .invalidConfiguration, "'\(origin)' is not an origin: give a scheme and a host, e.g. https://example.com"
            )
        }
        try await configuration.storage.removeEntries(inGroups: groups, origin: normalized)
    }

    /// Removes every response whose `userInfo` holds a given value for a key (e.g. all entries of one user at logout).
    /// - Parameters:
    ///   - key: The userInfo key.
    ///   - value: The value to match.
    /// - Throws: A storage error.
    public func removeCachedResponses<Key: CacheUserInfoKey>(
        taggedWith key: Key.Type,
        equalTo value: Key.Value
    ) async throws where Key.Value: Equatable {
        try await configuration.storage.removeEntries(withUserInfoNamed: Key.name, where: { $0.cached.userInfo[key] == value })
    }

    /// Bytes held in memory: `URLCache.currentMemoryUsage`.
    public var currentMemoryUsage: Int { get async { await configuration.storage.usage().memoryBytes } }
    /// Memory capacity in bytes: `URLCache.memoryCapacity`.
    public var memoryCapacity: Int { get async { await configuration.storage.usage().memoryCapacity } }
    /// Bytes held on disk: `URLCache.currentDiskUsage` (0 without a disk tier).
    public var currentDiskUsage: Int { get async { await configuration.storage.usage().diskBytes } }
    /// Disk capacity in bytes: `URLCache.diskCapacity` (0 without a disk tier).
    public var diskCapacity: Int { get async { await configuration.storage.usage().diskCapacity } }
}
