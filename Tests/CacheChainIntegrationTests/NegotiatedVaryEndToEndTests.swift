import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// `Vary` that understands content negotiation (issue 45.4): `Accept-Language`, `Accept` and `Accept-Encoding`
/// lists that differ only in case, whitespace, weight spelling or the order of equal-weight items select the same
/// stored variant, and a variant is selected when the new request's list would negotiate to it — through libcurl and
/// the loopback origin, in a private and a shared cache, in memory and on disk.
@Suite("Vary that understands content negotiation", .tags(.integration))
struct NegotiatedVaryEndToEndTests {
    enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case memory, disk
        var testDescription: String { rawValue }
    }

    static let setups: [(CacheMode, Backend)] = [(.privateCache, .memory), (.sharedCache, .memory), (.privateCache, .disk), (.sharedCache, .disk)]

    func withClient(_ mode: CacheMode, _ backend: Backend, _ body: (HTTPCacheClient, LoopbackOrigin) async throws -> Void) async throws {
        let origin = try await LoopbackOrigin.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("negotiated-vary-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage: any CacheStorage =
            switch backend {
            case .memory: MemoryStorage(capacity: 8 << 20)
            case .disk: try DiskStorage(directory: directory.path, capacity: 8 << 20)
            }
        let client = HTTPCacheClient(
            transport: CurlTransport(),
            configuration: .init(storage: storage, policy: CachePolicyConfiguration(mode: mode), clock: ManualClock())
        )
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

    func get(_ client: HTTPCacheClient, _ origin: LoopbackOrigin, _ path: String, _ name: HTTPField.Name, _ value: String) async throws -> PipelineResponse {
        var request = try HTTPRequest(url: origin.url(path))
        request.headerFields[name] = value
        return try await client.data(for: request)
    }

    func route(_ origin: LoopbackOrigin, _ path: String, vary: String, _ representation: (String, String), body: String) {
        origin.route(path, LoopbackRoute(
            headers: [("Cache-Control", "public, max-age=600"), ("Vary", vary), representation],
            body: body
        ))
    }

    @Test(
        "lists differing only in case, whitespace, weight spelling or order of equal-weight items select the same variant",
        arguments: Self.setups
    )
    func normalised(_ setup: (CacheMode, Backend)) async throws {
        let cases: [(HTTPField.Name, String, String, (String, String))] = [
            (.acceptLanguage, "fr-CH, fr;q=0.9, en;q=0.8", "FR-ch,en;Q=0.80 ,\tfr;q=0.900", ("Content-Language", "fr-CH")),
            (.accept, "text/html, application/json;q=0.5", "application/json; q=0.50, TEXT/HTML;q=1.0", ("Content-Type", "text/html")),
            (.accept, "text/html, application/xhtml+xml", "application/xhtml+xml,text/html", ("Content-Type", "text/html")),
            (.acceptEncoding, "gzip, br", "BR ,  GZIP", ("X-Coding", "none")),
        ]
        try await withClient(setup.0, setup.1) { client, origin in
            for (index, (name, first, second, representation)) in cases.enumerated() {
                let path = "/n\(index)"
                route(origin, path, vary: name.rawName, representation, body: "variant \(index)")
                #expect(try await get(client, origin, path, name, first).cacheStatus == .miss)
                let again = try await get(client, origin, path, name, second)
                #expect(again.cacheStatus == .hit, "\(name): \(second) after \(first): \(again.trace)")
                #expect(origin.requestCount(for: path) == 1)
            }
        }
    }

    @Test("a stored variant is selected when the new request's list would negotiate to it, and only then", arguments: Self.setups)
    func negotiated(_ setup: (CacheMode, Backend)) async throws {
        try await withClient(setup.0, setup.1) { client, origin in
            // Two variants under one key, so a disk lookup cannot take the only one.
            route(origin, "/lang", vary: "Accept-Language", ("Content-Language", "fr"), body: "bonjour")
            _ = try await get(client, origin, "/lang", .acceptLanguage, "fr, de;q=0.5")
            route(origin, "/lang", vary: "Accept-Language", ("Content-Language", "de"), body: "hallo")
            _ = try await get(client, origin, "/lang", .acceptLanguage, "de")
            #expect(origin.requestCount(for: "/lang") == 2)

            let french = try await get(client, origin, "/lang", .acceptLanguage, "fr;q=1.0, en;q=0.3")
            #expect(french.cacheStatus == .hit, "\(french.trace)")
            #expect(french.body.string == "bonjour")
            let german = try await get(client, origin, "/lang", .acceptLanguage, "en;q=0.2, de")
            #expect(german.cacheStatus == .hit, "\(german.trace)")
            #expect(german.body.string == "hallo")
            #expect(origin.requestCount(for: "/lang") == 2)

            // English first: the origin might have it, so neither stored variant answers.
            route(origin, "/lang", vary: "Accept-Language", ("Content-Language", "en"), body: "hello")
            let english = try await get(client, origin, "/lang", .acceptLanguage, "en, fr;q=0.9")
            #expect(english.cacheStatus == .miss)
            #expect(english.body.string == "hello")
            // A wildcard at the top lets the origin choose: not negotiated by the cache.
            let any = try await get(client, origin, "/lang", .acceptLanguage, "*")
            #expect(any.cacheStatus == .miss)

            route(origin, "/type", vary: "Accept", ("Content-Type", "text/html; charset=utf-8"), body: "<p>")
            _ = try await get(client, origin, "/type", .accept, "text/html, application/xhtml+xml")
            let html = try await get(client, origin, "/type", .accept, "text/html;q=0.9, */*;q=0.1")
            #expect(html.cacheStatus == .hit, "\(html.trace)")
            let json = try await get(client, origin, "/type", .accept, "application/json, text/html;q=0.5")
            #expect(json.cacheStatus == .miss)
        }
    }
}
