import CacheChain
import CacheChainLoopback
import Foundation
import HTTPTypes
import Testing

/// Request fields libcurl turns into request semantics, through the real transport and a loopback origin:
/// `Host` picks the origin's virtual host (HTTP/2: `:authority`), framing fields describe the body.
@Suite("Request fields that change what the origin answers", .tags(.integration))
struct RequestFieldSafetyTests {
    /// `Host`, which swift-http-types does not offer as a static member.
    let host = HTTPField.Name("Host")!

    /// An origin that answers `/page` per virtual host, as name-based virtual hosting does.
    func routeVirtualHosts(_ origin: LoopbackOrigin) {
        origin.route("/page") { request in
            let isVictim = request.header("Host")?.lowercased().hasPrefix("victim.example") == true
            return LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: isVictim ? "victim's page" : "the real page")
        }
    }

    @Test("a Host field naming another host neither stores nor is answered from the URL's entry", arguments: ProtocolMode.allCases)
    func hostCannotPoison(_ mode: ProtocolMode) async throws {
        try await withNetwork(mode) { net in
            routeVirtualHosts(net.origin)
            let poisoned = try await net.get("/page", [(host, "victim.example")])
            #expect(poisoned.body.string == "victim's page", "libcurl sends the caller's Host (\(mode))")
            #expect(poisoned.cacheStatus == .miss)
            #expect(poisoned.trace.contains { $0.code == .hostMismatch }, "\(poisoned.trace)")

            let real = try await net.get("/page")
            #expect(real.cacheStatus == .miss, "the victim's response must not have been stored under the URL")
            #expect(real.body.string == "the real page")
            #expect(try await net.get("/page").cacheStatus == .hit)

            let other = try await net.get("/page", [(host, "victim.example")])
            #expect(other.cacheStatus == .miss, "the URL's entry must not answer another virtual host")
            #expect(other.body.string == "victim's page")
            let onlyIfCached = try await net.get("/page", [(host, "victim.example"), (.cacheControl, "only-if-cached")])
            #expect(onlyIfCached.head.status.code == 504)
            #expect(net.origin.requestCount(for: "/page") == 3)

            // A Host field that names the URL's own authority (default port or not, any case) is no mismatch.
            let port = URLComponents(string: net.origin.url("/"))?.port ?? 0
            let same = try await net.get("/page", [(host, "127.0.0.1:\(port)".uppercased())])
            #expect(same.cacheStatus == .hit)
        }
    }

    @Test("HEAD with another Host does not freshen or invalidate the URL's stored GET")
    func hostCannotFreshen() async throws {
        try await withNetwork(.http) { net in
            routeVirtualHosts(net.origin)
            #expect(try await net.get("/page").cacheStatus == .miss)
            var head = try HTTPRequest(url: net.origin.url("/page"))
            head.method = .head
            head.headerFields[host] = "victim.example"
            let answer = try await net.client.data(for: head)
            #expect(answer.trace.contains { $0.code == .hostMismatch }, "\(answer.trace)")
            let hit = try await net.get("/page")
            #expect(hit.cacheStatus == .hit)
            #expect(hit.body.string == "the real page")
        }
    }

    @Test(
        "a caller's Content-Length, Transfer-Encoding or TE is not sent: the body's real framing is",
        arguments: ProtocolMode.allCases, [("Content-Length", "10"), ("Transfer-Encoding", "chunked"), ("TE", "gzip")]
    )
    func framingIsTheTransports(_ mode: ProtocolMode, field: (String, String)) async throws {
        try await withNetwork(mode) { net in
            net.origin.route("/framed", LoopbackRoute(headers: [("Cache-Control", "no-store")], body: "answered"))
            let name = try #require(HTTPField.Name(field.0))
            // Two requests on one reused connection: a desynchronised first one would swallow the second.
            let first = try await net.get("/framed", [(name, field.1)])
            let second = try await net.get("/framed")
            #expect(first.body.string == "answered")
            #expect(second.body.string == "answered")
            #expect(net.origin.receivedRequests.allSatisfy { $0.header(field.0) == nil }, "\(field.0) reached the origin")
        }
    }
}
