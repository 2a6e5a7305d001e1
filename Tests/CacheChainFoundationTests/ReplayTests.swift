import CacheChain
import CacheChainFoundation
import CacheChainLoopback
import CacheChainTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Testing

/// One step of a scripted exchange.
enum ReplayStep: Sendable {
    /// The origin answers `path` with `route` from now on.
    case route(String, LoopbackRoute)
    /// The clock moves on.
    case advance(TimeInterval)
    /// A request.
    case request(String, method: String = "GET", policy: RequestCachePolicy = .useProtocolCachePolicy, headers: [(String, String)] = [])
}

/// What the application and the origin saw for one request.
struct ReplayOutcome: Equatable, CustomStringConvertible {
    var result: String
    var decisions: [CacheEvent.Kind]
    var originRequests: Int
    var description: String { "\(result) \(decisions) origin=\(originRequests)" }
}

/// The same scripted exchanges through `HTTPCacheClient` and through `URLSession` (FoundationNetworking with
/// `usingCacheChain`): the decisions (hit, miss, revalidated…), the statuses and bodies the application sees, and
/// the origin's request counts must be the same, step by step.
@Suite("Replay: URLSession decides as HTTPCacheClient does")
struct ReplayTests {
    static let script: [ReplayStep] = [
        .route("/a", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "A1", etag: "\"1\"")),
        .request("/a"), .request("/a"),
        .advance(120), .request("/a"), .request("/a"),
        .route("/a", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "A2", etag: "\"2\"")),
        .advance(120), .request("/a"), .request("/a", policy: .returnCacheDataDontLoad),
        .request("/a", policy: .reloadRevalidatingCacheData), .request("/a", policy: .reloadIgnoringLocalCacheData),
        .request("/a", policy: .reloadIgnoringLocalAndRemoteCacheData),
        .advance(600), .request("/a", policy: .returnCacheDataElseLoad),
        .route("/n", LoopbackRoute(headers: [("Cache-Control", "no-store")], body: "N")),
        .request("/n"), .request("/n"),
        .route("/missing", LoopbackRoute(body: "M")), .request("/missing", policy: .returnCacheDataDontLoad),
        .route("/v", LoopbackRoute(headers: [("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")], body: "V")),
        .request("/v", headers: [("Accept-Language", "fr")]), .request("/v", headers: [("Accept-Language", "en")]),
        .request("/v", headers: [("Accept-Language", "fr")]),
        .route("/404", LoopbackRoute(status: 404, headers: [("Cache-Control", "max-age=60")], body: "gone")),
        .request("/404"), .request("/404"),
        .route("/old", LoopbackRoute(status: 301, headers: [("Location", "/new"), ("Cache-Control", "max-age=60")])),
        .route("/new", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "NEW")),
        .request("/old"), .request("/old"),
        .route("/lm", LoopbackRoute(headers: [("Last-Modified", "Mon, 01 Jan 2024 00:00:00 GMT")], body: "heuristic")),
        .request("/lm"), .request("/lm"),
        .request("/a", method: "POST"), .request("/a"),
        .request("/a", method: "DELETE"), .request("/a", method: "HEAD"), .request("/a"),
    ]

    /// Runs the script through one of the two APIs.
    private func replay(
        through send: @escaping (LoopbackSession, String, String, RequestCachePolicy, [(String, String)]) async throws -> String
    ) async throws -> [ReplayOutcome] {
        try await withLoopbackSession(outer: [RedirectInterceptor()]) { net in
            var outcomes: [ReplayOutcome] = []
            for step in Self.script {
                switch step {
                case .route(let path, let route): net.origin.route(path, route)
                case .advance(let seconds): net.clock.advance(by: seconds)
                case .request(let path, let method, let policy, let headers):
                    let before = net.probe.events.withLock { $0.count }
                    let result: String
                    do {
                        result = try await send(net, path, method, policy, headers)
                    } catch {
                        result = "error"
                    }
                    let decisions = net.probe.events.withLock { Array($0[before...]) }.filter { [.hit, .miss, .revalidated, .staleServed].contains($0) }
                    outcomes.append(ReplayOutcome(result: "\(method) \(path): \(result)", decisions: decisions, originRequests: net.origin.receivedRequests.count))
                }
            }
            return outcomes
        }
    }

    @Test("the same scripted exchanges make the same decisions through HTTPCacheClient and URLSession")
    func sameDecisions() async throws {
        let direct = try await replay { net, path, method, policy, headers in
            var head = try HTTPRequest(method: HTTPRequest.Method(method) ?? .get, url: net.origin.url(path))
            for (name, value) in headers { head.headerFields.append(HTTPField(name: try #require(HTTPField.Name(name)), value: value)) }
            let response = try await net.client.data(for: head, cachePolicy: policy)
            return "\(response.head.status.code) \(response.body.string ?? "")"
        }
        let session = try await replay { net, path, method, policy, headers in
            var request = net.request(path, policy: policy.urlRequestCachePolicy, method: method)
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            let (data, response) = try await net.session.data(for: request)
            return "\((response as? HTTPURLResponse)?.statusCode ?? -1) \(String(decoding: data, as: UTF8.self))"
        }
        #expect(direct.count == session.count)
        for (index, pair) in zip(direct, session).enumerated() {
            #expect(pair.0 == pair.1, "step \(index): HTTPCacheClient \(pair.0) vs URLSession \(pair.1)")
        }
        // The script exercises every kind of decision.
        let kinds = Set(direct.flatMap(\.decisions))
        #expect(kinds.isSuperset(of: [.hit, .miss, .revalidated]))
    }
}
