import CacheChain
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// One normalised request target (issue 46.1–2): what the transport sends is what the cache keys and what the
/// rules match, through each transport (libcurl, AsyncHTTPClient), in a private and a shared cache.
///
/// The origin answers the literal encoded path with an attacker's body: before the fix the transport sent that
/// path while the key said `/app/victim.js`, so the attacker's body was stored for everyone asking for it.
@Suite("One request target: what is fetched is what is keyed and matched", .tags(.integration))
struct RequestTargetEndToEndTests {
    /// Targets that RFC 3986 §6.2.2 normalises to `/app/victim.js`: `%2e%2e`, `%2E%2E`, `.%2e`, `%2e` and mixed.
    static let dotForms = [
        "/upload/mallory/%2e%2e/%2e%2e/app/victim.js",
        "/upload/mallory/%2E%2E/%2E%2E/app/victim.js",
        "/upload/mallory/.%2e/%2E./app/victim.js",
        "/upload/mallory/%2E%2e/../app/victim.js",
        "/app/%2e/victim.js",
        "/app/%2E/./%2e/victim.js",
    ]

    static let modes: [CacheMode] = [.privateCache, .sharedCache]

    func withClient(
        _ kind: TransportKind,
        _ cacheMode: CacheMode,
        policyOverrides: [PolicyOverrideRule] = [],
        bodyKeyedCaching: [BodyKeyedCachingRule] = [],
        _ body: (HTTPCacheClient, LoopbackOrigin) async throws -> Void
    ) async throws {
        let origin = try await LoopbackOrigin.start()
        let configuration = HTTPCacheClient.Configuration(
            storage: MemoryStorage(capacity: 8 << 20),
            policy: CachePolicyConfiguration(mode: cacheMode),
            clock: ManualClock(),
            policyOverrides: policyOverrides,
            bodyKeyedCaching: bodyKeyedCaching
        )
        let client = HTTPCacheClient(transport: try kind.makeTransport(), configuration: configuration)
        do {
            try await body(client, origin)
        } catch {
            try? await client.shutdown()
            try? await origin.shutdown()
            throw error
        }
        try await client.shutdown()
        try await origin.shutdown()
    }

    func get(_ client: HTTPCacheClient, _ origin: LoopbackOrigin, _ path: String) async throws -> PipelineResponse {
        try await client.data(for: HTTPRequest(url: origin.url(path)))
    }

    /// Routes the genuine `/app/victim.js` and an attacker's body for `raw`, the literal encoded path.
    func routeVictim(_ origin: LoopbackOrigin, attackerPath raw: String) {
        let cacheable = [("Cache-Control", "public, max-age=600")]
        origin.route("/app/victim.js", LoopbackRoute(headers: cacheable, body: "genuine"))
        origin.route(raw, LoopbackRoute(headers: cacheable, body: "evil"))
    }

    @Test(
        "a dot segment written with %2e/%2E is fetched as it is keyed: the origin answers /app/victim.js, nothing is poisoned",
        arguments: TransportKind.allCases, Self.modes.flatMap { mode in Self.dotForms.map { (mode, $0) } }
    )
    func encodedDotSegments(_ kind: TransportKind, _ modeAndPath: (CacheMode, String)) async throws {
        let (mode, raw) = modeAndPath
        try await withClient(kind, mode) { client, origin in
            routeVictim(origin, attackerPath: raw)
            let first = try await get(client, origin, raw)
            #expect(first.body.string == "genuine", "\(raw) was fetched as the origin's \(origin.receivedRequests.map(\.path))")
            #expect(origin.receivedRequests.map(\.path) == ["/app/victim.js"], "the transport sent the normalised target")
            let second = try await get(client, origin, "/app/victim.js")
            #expect(second.cacheStatus == .hit)
            #expect(second.body.string == "genuine")
            #expect(origin.requestCount(for: raw) == 0)
        }
    }

    @Test(
        "a double-encoded dot (%252e) is not a dot: sent and keyed as written, /app/victim.js untouched",
        arguments: TransportKind.allCases, Self.modes
    )
    func doubleEncodedDots(_ kind: TransportKind, _ mode: CacheMode) async throws {
        let raw = "/upload/mallory/%252e%252e/%252E%252E/app/victim.js"
        try await withClient(kind, mode) { client, origin in
            routeVictim(origin, attackerPath: raw)
            let first = try await get(client, origin, raw)
            #expect(first.body.string == "evil", "the origin's answer for the literal path")
            #expect(origin.receivedRequests.map(\.path) == [raw])
            #expect(try await get(client, origin, raw).cacheStatus == .hit, "keyed under the path it was fetched as")
            let victim = try await get(client, origin, "/app/victim.js")
            #expect(victim.cacheStatus == .miss)
            #expect(victim.body.string == "genuine")
        }
    }

    @Test(
        "a policy-override rule for /public/ does not give /public/../api/me's response (for /api/me) its lifetime",
        arguments: TransportKind.allCases, Self.modes
    )
    func overrideRuleMatchesNormalisedTarget(_ kind: TransportKind, _ mode: CacheMode) async throws {
        let rules = [PolicyOverrideRule("public", pathPrefix: "/public/", freshness: .always(.seconds(3_600)))]
        try await withClient(kind, mode, policyOverrides: rules) { client, origin in
            origin.route("/api/me", LoopbackRoute(headers: [("Cache-Control", "public, max-age=0")], body: "me"))
            for raw in ["/public/../api/me", "/public/%2e%2e/api/me", "/public/.%2E/api/me"] {
                let sneaky = try await get(client, origin, raw)
                #expect(sneaky.body.string == "me")
                #expect(!sneaky.trace.contains { $0.code == .policyOverride }, "\(raw): \(sneaky.trace)")
                let direct = try await get(client, origin, "/api/me")
                #expect(direct.cacheStatus != .hit, "\(raw) gave /api/me the rule's hour: \(direct.trace)")
            }
            #expect(origin.requestCount(for: "/api/me") == 6)
        }
    }

    @Test(
        "a body-keyed rule for /gql does not answer POST /gql/../admin/delete from the cache: the origin sees each delete",
        arguments: TransportKind.allCases, Self.modes
    )
    func bodyKeyedRuleMatchesNormalisedTarget(_ kind: TransportKind, _ mode: CacheMode) async throws {
        let overrides = [PolicyOverrideRule("gql", pathPrefix: "/gql", freshness: .whenAbsent(.seconds(60)))]
        let bodyKeyed = [BodyKeyedCachingRule("gql", pathPrefix: "/gql")]
        try await withClient(kind, mode, policyOverrides: overrides, bodyKeyedCaching: bodyKeyed) { client, origin in
            origin.route("/admin/delete") { request in LoopbackRoute(body: "deleted \(String(decoding: request.body, as: UTF8.self))") }
            for raw in ["/gql/../admin/delete", "/gql/%2E%2E/admin/delete", "/gql/../admin/delete"] {
                var request = try HTTPRequest(url: origin.url(raw))
                request.method = .post
                let response = try await client.data(for: request, body: PipelineBody(string: "id=7"))
                #expect(!response.cacheStatus.isFromCache, "\(raw): \(response.trace)")
                #expect(!response.trace.contains { $0.code == .bodyKeyed })
            }
            #expect(origin.receivedRequests.map(\.path) == Array(repeating: "/admin/delete", count: 3))
        }
    }
}
