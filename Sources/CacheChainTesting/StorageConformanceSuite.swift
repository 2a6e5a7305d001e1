public import CacheChainCore
public import Foundation
import HTTPTypes

/// The checks every ``CacheStorage`` backend must pass — memory, disk, tiered, encrypted, and any a team
/// writes. Framework-agnostic: each check throws a ``ConformanceFailure`` naming what differed.
///
/// ```swift
/// @Test func conforms() async throws {
///     try await StorageConformanceSuite(makeStorage: { MyBackend(directory: try temporaryDirectory()) }).run()
/// }
/// ```
/// Every check gets a fresh backend from `makeStorage`. The data is small (at most a 1 MiB body and a
/// few hundred KiB in total), so any backend with 8 MiB of capacity passes; no check assumes a capacity.
public struct StorageConformanceSuite: Sendable {
    /// A check's name and body.
    public struct Check: Sendable {
        /// The name, e.g. `round-trip`.
        public var name: String
        /// The check, run against a fresh backend.
        public var run: @Sendable (any CacheStorage) async throws -> Void
    }

    private let makeStorage: @Sendable () async throws -> any CacheStorage

    /// Creates the suite.
    /// - Parameter makeStorage: Returns a fresh, empty backend for each check.
    public init(makeStorage: @escaping @Sendable () async throws -> any CacheStorage) {
        self.makeStorage = makeStorage
    }

    /// Runs every check in ``checks``, stopping at the first failure.
    /// - Throws: The first ``ConformanceFailure``, or the backend's own error.
    public func run() async throws {
        for check in Self.checks {
            try await run(check)
        }
    }

    /// Runs one check against a fresh backend.
    /// - Parameter check: The check.
    /// - Throws: Its ``ConformanceFailure`` or the backend's error.
    public func run(_ check: Check) async throws {
        try await check.run(try await makeStorage())
    }

    /// Every check, in a stable order.
    public static var checks: [Check] {
        [
            Check(name: "round-trip", run: roundTrip),
            Check(name: "variants", run: variants),
            Check(name: "remove-key", run: removeKey),
            Check(name: "remove-all", run: removeAll),
            Check(name: "remove-since", run: removeSince),
            Check(name: "remove-where", run: removeWhere),
            Check(name: "not-allowed", run: notAllowed),
            Check(name: "bodies", run: bodies),
            Check(name: "many-keys", run: manyKeys),
            Check(name: "concurrency", run: concurrency),
            Check(name: "odd-keys", run: oddKeys),
        ]
    }

    // MARK: - Fixtures

    /// Builds an entry for the checks (public so custom checks can use it).
    /// - Parameters:
    ///   - path: The request path on `https://conformance.test`.
    ///   - body: The body.
    ///   - language: The request's `Accept-Language`; when set the response varies on it.
    ///   - storedAt: Seconds since 2023-11-14 (the fixed epoch of the fixtures).
    ///   - policy: The storage policy.
    ///   - tag: A userInfo tag.
    /// - Returns: The entry.
    public static func makeEntry(
        path: String,
        body: HTTPBody = "body",
        language: String? = nil,
        storedAt: TimeInterval = 0,
        policy: StoragePolicy = .allowed,
        tag: String? = nil
    ) -> CacheEntry {
        var request = HTTPRequest(method: .get, scheme: "https", authority: "conformance.test", path: path)
        var response = HTTPResponse(status: .ok)
        response.headerFields[.cacheControl] = "max-age=600"
        response.headerFields[.eTag] = "\"\(path.utf8.count)-\(body.count)\""
        response.headerFields.append(HTTPField(name: .setCookie, value: "a=1"))
        response.headerFields.append(HTTPField(name: .setCookie, value: "b=2"))
        if let language {
            request.headerFields[.acceptLanguage] = language
            response.headerFields[.vary] = "Accept-Language"
        }
        var info = CacheUserInfo()
        if let tag { info[ConformanceTagKey.self] = tag }
        let epoch = Date(timeIntervalSince1970: 1_700_000_000)
        return CacheEntry(
            request: request,
            cached: CachedResponse(
                response: response,
                body: body,
                userInfo: info,
                storagePolicy: policy,
                requestTime: epoch.addingTimeInterval(storedAt - 1),
                responseTime: epoch.addingTimeInterval(storedAt)
            ),
            storedAt: epoch.addingTimeInterval(storedAt)
        )
    }

    static func expect(_ condition: Bool, _ check: String, _ detail: @autoclosure () -> String) throws {
        if !condition { throw ConformanceFailure(check: check, detail: detail()) }
    }
}

/// The userInfo tag the conformance fixtures use.
public enum ConformanceTagKey: CacheUserInfoKey {
    /// A tag string.
    public typealias Value = String
    /// Persisted as `conformance-tag`.
    public static let name = "conformance-tag"
}
