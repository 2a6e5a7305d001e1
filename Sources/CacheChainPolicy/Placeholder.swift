// TEMPORARY contract stub: replaced by the real engine (helper deletes this file).
public import Foundation
public import HTTPTypes

public enum RequestCachePolicy: String, Sendable, Hashable, Codable, CaseIterable {
    case useProtocolCachePolicy, reloadIgnoringLocalCacheData, reloadIgnoringLocalAndRemoteCacheData,
        returnCacheDataElseLoad, returnCacheDataDontLoad, reloadRevalidatingCacheData
}
public enum CacheMode: String, Sendable, Hashable, Codable { case privateCache, sharedCache }
public struct CacheReason: Sendable, Hashable, Codable, CustomStringConvertible {
    public struct Code: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }
        public static let fresh = Code(rawValue: "fresh")
        public static let stale = Code(rawValue: "stale")
        public static let noStore = Code(rawValue: "no-store")
        public static let tooLarge = Code(rawValue: "too-large")
        public static let storageError = Code(rawValue: "storage-error")
        public static let storable = Code(rawValue: "storable")
        public static let invalidated = Code(rawValue: "invalidated")
        public static let revalidated = Code(rawValue: "revalidated")
        public static let notModified = Code(rawValue: "not-modified")
        public static let policy = Code(rawValue: "policy")
        public static let vetoed = Code(rawValue: "vetoed")
        public static let staleIfError = Code(rawValue: "stale-if-error")
        public static let staleWhileRevalidate = Code(rawValue: "stale-while-revalidate")
        public static let onlyIfCached = Code(rawValue: "only-if-cached")
        public static let method = Code(rawValue: "method")
        public static let unsafeMethod = Code(rawValue: "unsafe-method")
        public static let noStoredResponse = Code(rawValue: "no-stored-response")
    }
    public var code: Code
    public var detail: String
    public init(_ code: Code, _ detail: String = "") { self.code = code; self.detail = detail }
    public var description: String { detail.isEmpty ? code.rawValue : "\(code.rawValue): \(detail)" }
}
public struct StoredExchange: Sendable, Hashable {
    public var request: HTTPRequest
    public var response: HTTPResponse
    public var requestTime: Date
    public var responseTime: Date
    public init(request: HTTPRequest, response: HTTPResponse, requestTime: Date, responseTime: Date) {
        self.request = request; self.response = response; self.requestTime = requestTime; self.responseTime = responseTime
    }
}
public struct CachePolicyConfiguration: Sendable, Hashable {
    public var mode: CacheMode
    public var heuristicFraction: Double
    public var maximumHeuristicLifetime: TimeInterval
    public init(mode: CacheMode = .privateCache, heuristicFraction: Double = 0.1, maximumHeuristicLifetime: TimeInterval = 86_400) {
        self.mode = mode; self.heuristicFraction = heuristicFraction; self.maximumHeuristicLifetime = maximumHeuristicLifetime
    }
}
public struct FreshnessLifetime: Sendable, Hashable {
    public enum Source: String, Sendable, Hashable { case sharedMaxAge, maxAge, expires, heuristic, none, invalid }
    public var seconds: TimeInterval
    public var source: Source
}
public struct FreshnessReport: Sendable, Hashable {
    public var lifetime: FreshnessLifetime
    public var currentAge: TimeInterval
    public var isFresh: Bool
    public var staleness: TimeInterval
}
public enum StorabilityVerdict: Sendable, Hashable {
    case storable([CacheReason])
    case notStorable([CacheReason])
    public var isStorable: Bool { if case .storable = self { return true }; return false }
    public var reasons: [CacheReason] { switch self { case .storable(let r), .notStorable(let r): r } }
}
public enum CacheDecision: Sendable, Hashable {
    case useStored(index: Int, FreshnessReport, [CacheReason])
    case useStoredAndRevalidate(index: Int, conditional: HTTPRequest, FreshnessReport, [CacheReason])
    case validate(indices: [Int], conditional: HTTPRequest, [CacheReason])
    case fetch([CacheReason])
    case unsatisfiable([CacheReason])
    public var reasons: [CacheReason] {
        switch self {
        case .useStored(_, _, let r), .useStoredAndRevalidate(_, _, _, let r), .validate(_, _, let r), .fetch(let r), .unsatisfiable(let r): r
        }
    }
}
public struct InvalidationTarget: Sendable, Hashable {
    public var scheme: String
    public var authority: String
    public var path: String
    public init(scheme: String, authority: String, path: String) { self.scheme = scheme; self.authority = authority; self.path = path }
}
public struct CachePolicyEngine: Sendable {
    public var configuration: CachePolicyConfiguration
    public init(configuration: CachePolicyConfiguration = .init()) { self.configuration = configuration }
    public func storability(request: HTTPRequest, response: HTTPResponse) -> StorabilityVerdict { .notStorable([]) }
    public func freshnessLifetime(of stored: StoredExchange) -> FreshnessLifetime { .init(seconds: 0, source: .none) }
    public func currentAge(of stored: StoredExchange, now: Date) -> TimeInterval { 0 }
    public func freshness(of stored: StoredExchange, now: Date) -> FreshnessReport {
        .init(lifetime: freshnessLifetime(of: stored), currentAge: 0, isFresh: false, staleness: 0)
    }
    public func selectVariant(for request: HTTPRequest, among stored: [StoredExchange]) -> Int? { nil }
    public func decide(request: HTTPRequest, policy: RequestCachePolicy, stored: [StoredExchange], now: Date) -> CacheDecision { .fetch([]) }
    public func conditionalRequest(for request: HTTPRequest, validating candidates: [StoredExchange]) -> HTTPRequest { request }
    public func selectForFreshening(notModified: HTTPResponse, candidates: [StoredExchange]) -> [Int] { [] }
    public func freshen(_ stored: StoredExchange, with notModified: HTTPResponse, requestTime: Date, responseTime: Date) -> StoredExchange { stored }
    public func freshenWithHead(_ stored: StoredExchange, headResponse: HTTPResponse, requestTime: Date, responseTime: Date) -> StoredExchange? { nil }
    public func invalidationTargets(request: HTTPRequest, response: HTTPResponse) -> [InvalidationTarget] { [] }
    public func canServeStaleOnError(_ stored: StoredExchange, request: HTTPRequest, now: Date) -> Bool { false }
    public func responseForServing(_ stored: StoredExchange, now: Date) -> HTTPResponse { stored.response }
    public func evaluateConditional(request: HTTPRequest, servedResponse: HTTPResponse) -> HTTPResponse? { nil }
}
public enum HTTPDate {
    public static func parse(_ value: String) -> Date? { nil }
    public static func format(_ date: Date) -> String { "Thu, 01 Jan 1970 00:00:00 GMT" }
}
