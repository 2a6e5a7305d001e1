public import CacheChainCore
public import Foundation
import HTTPTypes

/// The checks every `CacheStorage` backend must pass — memory, disk, tiered, encrypted, and any a team
/// writes. Framework-agnostic: each check throws a ``ConformanceFailure`` naming what differed.
///
/// ```swift
/// @Test func conforms() async throws {
///     try await StorageConformanceSuite(makeStorage: { try MyBackend(directory: temporaryDirectory()) }).run()
/// }
/// ```
/// Every check gets a fresh backend from `makeStorage`. The data is small (at most a 1 MiB body and a
/// few MiB in total), so any backend with 8 MiB of capacity passes; no check assumes a capacity.
/// A persistent backend also passes `reopen`, which opens a second instance on the same data: the
/// `persistence` check then proves entries survive it (memory backends leave it out and the check passes
/// trivially).
public struct StorageConformanceSuite: Sendable {
    /// A check's name and body.
    public struct Check: Sendable {
        /// The name, e.g. `round-trip`.
        public var name: String
        /// The check, run against a fresh backend.
        public var run: @Sendable (any CacheStorage) async throws -> Void
        /// The check's variant that also reopens the backend, when it has one and the suite was given
        /// `reopen`.
        public var runReopening: (@Sendable (any CacheStorage, Reopen) async throws -> Void)?

        /// Creates a check.
        /// - Parameters:
        ///   - name: The name.
        ///   - run: The check.
        ///   - runReopening: The variant used when the suite can reopen the backend.
        public init(
            name: String,
            run: @escaping @Sendable (any CacheStorage) async throws -> Void,
            runReopening: (@Sendable (any CacheStorage, Reopen) async throws -> Void)? = nil
        ) {
            self.name = name
            self.run = run
            self.runReopening = runReopening
        }
    }

    /// Opens a second instance of a persistent backend on the same data as the one given.
    public typealias Reopen = @Sendable (any CacheStorage) async throws -> any CacheStorage

    private let makeStorage: @Sendable () async throws -> any CacheStorage
    private let reopen: Reopen?

    /// Creates the suite.
    /// - Parameters:
    ///   - makeStorage: Returns a fresh, empty backend for each check.
    ///   - reopen: For persistent backends: opens another instance on the data of the one given.
    public init(makeStorage: @escaping @Sendable () async throws -> any CacheStorage, reopen: Reopen? = nil) {
        self.makeStorage = makeStorage
        self.reopen = reopen
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
        let storage = try await makeStorage()
        if let reopen, let runReopening = check.runReopening {
            try await runReopening(storage, reopen)
        } else {
            try await check.run(storage)
        }
    }

    /// Every check, in a stable order.
    public static var checks: [Check] {
        [
            Check(name: "round-trip", run: roundTrip),
            Check(name: "variants", run: variants),
            Check(name: "matching-variants", run: matchingVariants),
            Check(name: "remove-key", run: removeKey),
            Check(name: "remove-all", run: removeAll),
            Check(name: "remove-since", run: removeSince),
            Check(name: "remove-where", run: removeWhere),
            Check(name: "not-allowed", run: notAllowed),
            Check(name: "bodies", run: bodies),
            Check(name: "many-keys", run: manyKeys),
            Check(name: "concurrency", run: concurrency),
            Check(name: "odd-keys", run: oddKeys),
            Check(name: "remove-variant", run: removeVariant),
            Check(name: "remove-url-prefix", run: removeURLPrefix),
            Check(name: "remove-tagged", run: removeTagged),
            Check(name: "remove-same-target", run: removeSameTarget),
            Check(name: "remove-groups", run: removeGroups, runReopening: removeGroupsReopened),
            Check(name: "remove-expired", run: removeExpired),
            Check(name: "usage", run: usage),
            Check(name: "readers-outlive-removal", run: readersOutliveRemoval),
            Check(name: "persistence", run: { _ in }, runReopening: persistence),
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
        body: PipelineBody = "body",
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
