import CacheChain
import CacheChainLoopback
import CacheChainTesting
import HTTPTypes
import Testing

/// `HTTPCacheClient` follows redirects by default, as URLSession and AsyncHTTPClient do, over both transports:
/// each hop through the cache, credentials dropped across origins, a documented hop limit, and a switch to turn it
/// off (issue 44.3).
@Suite("Redirects followed by default, over libcurl and AsyncHTTPClient", .tags(.integration))
struct DefaultRedirectTests {
    /// A client over a transport of `kind` with the default chain and `configuration`'s redirect settings.
    private static func client(_ kind: TransportKind, _ configure: (inout HTTPCacheClient.Configuration) -> Void = { _ in }) throws -> HTTPCacheClient {
        var configuration = HTTPCacheClient.Configuration(storage: MemoryStorage(capacity: 1 << 20), timeout: .seconds(20))
        configure(&configuration)
        return HTTPCacheClient(transport: try kind.makeTransport(), configuration: configuration)
    }

    @Test("with no configuration, a 301 is followed and both hops are cached", arguments: TransportKind.allCases)
    func followedByDefault(_ kind: TransportKind) async throws {
        let origin = try await LoopbackOrigin.start()
        origin.route("/old", LoopbackRoute(status: 301, headers: [("Location", "/new"), ("Cache-Control", "max-age=600")], body: "moved"))
        origin.route("/new", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "here"))
        let client = try Self.client(kind)
        let first = try await client.data(for: HTTPRequest(url: origin.url("/old")))
        #expect(first.head.status.code == 200)
        #expect(first.body.string == "here")
        #expect(first.trace.first?.code == .redirected)
        let second = try await client.data(for: HTTPRequest(url: origin.url("/old")))
        #expect(second.cacheStatus == .hit && second.body.string == "here")
        #expect(origin.requestCount(for: "/old") == 1 && origin.requestCount(for: "/new") == 1)
        try await client.shutdown()
        try await origin.shutdown()
    }

    @Test("Authorization, Cookie and Proxy-Authorization stay with their origin", arguments: TransportKind.allCases)
    func credentialsDroppedAcrossOrigins(_ kind: TransportKind) async throws {
        let first = try await LoopbackOrigin.start()
        let other = try await LoopbackOrigin.start()
        first.route("/start", LoopbackRoute(status: 302, headers: [("Location", "/same")], body: ""))
        first.route("/same", LoopbackRoute(status: 307, headers: [("Location", other.url("/land"))], body: ""))
        other.route("/land", LoopbackRoute(headers: [("Cache-Control", "no-store")], body: "landed"))
        let client = try Self.client(kind)
        var request = try HTTPRequest(url: first.url("/start"))
        request.headerFields[.authorization] = "Bearer secret"
        request.headerFields[.cookie] = "session=1"
        request.headerFields[.proxyAuthorization] = "Basic cHJveHk6cHc="
        request.headerFields[.accept] = "text/plain"
        let response = try await client.data(for: request)
        #expect(response.body.string == "landed")
        #expect(response.trace.filter { $0.code == .redirected }.count == 2)
        let sameOrigin = try #require(first.receivedRequests.first { $0.path == "/same" })
        #expect(sameOrigin.header("Authorization") == "Bearer secret", "a same-origin hop keeps the credentials")
        #expect(sameOrigin.header("Cookie") == "session=1")
        let landed = try #require(other.receivedRequests.first { $0.path == "/land" })
        #expect(landed.header("Authorization") == nil)
        #expect(landed.header("Cookie") == nil)
        #expect(landed.header("Proxy-Authorization") == nil)
        #expect(landed.header("Accept") == "text/plain", "other fields go on")
        try await client.shutdown()
        try await first.shutdown()
        try await other.shutdown()
    }

    @Test("more than maximumRedirects hops is an invalid-request error naming them", arguments: TransportKind.allCases)
    func hopLimit(_ kind: TransportKind) async throws {
        let origin = try await LoopbackOrigin.start()
        origin.route("/loop", LoopbackRoute(status: 302, headers: [("Location", "/loop"), ("Cache-Control", "no-store")], body: ""))
        let client = try Self.client(kind) { $0.maximumRedirects = 3 }
        let error = await #expect(throws: CacheChainError.self) { try await client.data(for: HTTPRequest(url: origin.url("/loop"))) }
        #expect(error?.code == .tooManyRedirects)
        #expect(error?.message.contains("more than 3 redirects") == true, "\(error?.message ?? "")")
        #expect(origin.requestCount(for: "/loop") == 4, "the first request and three hops")
        try await client.shutdown()
        try await origin.shutdown()
    }

    @Test("isRedirectFollowingEnabled = false returns the 3xx itself, with its body", arguments: TransportKind.allCases)
    func switchedOff(_ kind: TransportKind) async throws {
        let origin = try await LoopbackOrigin.start()
        origin.route("/old", LoopbackRoute(status: 301, headers: [("Location", "/new")], body: "moved"))
        origin.route("/new", LoopbackRoute(body: "here"))
        let client = try Self.client(kind) { $0.isRedirectFollowingEnabled = false }
        let response = try await client.data(for: HTTPRequest(url: origin.url("/old")))
        #expect(response.head.status.code == 301 && response.body.string == "moved")
        #expect(origin.requestCount(for: "/new") == 0)
        try await client.shutdown()
        try await origin.shutdown()
    }

    @Test("a RedirectInterceptor already in outerInterceptors is the only one in the chain")
    func noSecondFollower() throws {
        let configuration = HTTPCacheClient.Configuration(outerInterceptors: [RedirectInterceptor(maximumRedirects: 2)])
        let chain = HTTPCacheClient.defaultInterceptors(for: configuration)
        #expect(chain.filter { $0 is RedirectInterceptor }.count == 1)
        #expect((chain.first as? RedirectInterceptor)?.maximumRedirects == 2)
        #expect(HTTPCacheClient.defaultInterceptors(for: .init()).first is RedirectInterceptor)
        #expect(!HTTPCacheClient.defaultInterceptors(for: .init(isRedirectFollowingEnabled: false)).contains { $0 is RedirectInterceptor })
    }
}
