import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import HTTPTypes
import Testing
import Tracing

/// One client span per request through `HTTPCacheClient` (issue 44.1), named and attributed as OpenTelemetry's
/// HTTP client conventions say, with the cache's outcome in `Cache-Status` terms; the origin receives the span's
/// `traceparent`. Over libcurl (which injects it) and AsyncHTTPClient (which does so itself), against a loopback
/// origin, with a recording tracer bound as the process's tracer for the test's scope.
@Suite("A traced request is one client span with the HTTP and cache attributes", .tags(.integration))
struct ClientSpanTests {
    @Test("MISS, HIT and REVALIDATED: one span each, attributes, traceparent at the origin", arguments: TransportKind.allCases)
    func missHitRevalidated(kind: TransportKind) async throws {
        let tracer = RecordingTracer()
        try await withTracer(tracer) {
            try await withNetwork(through: kind) { net in
                net.origin.route("/fresh", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "fresh"))
                net.origin.route("/checked", LoopbackRoute(headers: [("Cache-Control", "max-age=5")], body: "checked", etag: "\"c1\""))
                let prefix = net.origin.url("/")
                let port = String(net.origin.port)

                #expect(try await net.get("/fresh").cacheStatus == .miss)
                #expect(try await net.get("/fresh").cacheStatus == .hit)
                _ = try await net.get("/checked")
                net.clock.advance(by: 30)
                #expect(try await net.get("/checked").cacheStatus == .revalidated)

                // AsyncHTTPClient adds a client span of its own per network exchange, a child of ours: ours are
                // the ones with the cache's outcome.
                let spans = tracer.spans(urlPrefix: prefix).filter { $0.text("http.cache.status") != nil }
                #expect(spans.count == 4, "\(spans.map(\.name))")
                for span in spans {
                    #expect(span.name == "GET")
                    #expect(span.kind == .client)
                    #expect(span.text("http.request.method") == "GET")
                    #expect(span.text("server.address") == "127.0.0.1")
                    #expect(span.text("server.port") == port)
                    #expect(span.text("http.response.status_code") == "200")
                }
                let byURL = { (path: String) in spans.filter { $0.text("url.full") == net.origin.url(path) } }
                let fresh = byURL("/fresh")
                #expect(fresh.map { $0.text("http.cache.status") } == ["fwd=uri-miss; fwd-status=200; stored", "hit; ttl=600"])
                let checked = byURL("/checked")
                #expect(checked.map { $0.text("http.cache.status") } == ["fwd=uri-miss; fwd-status=200; stored", "fwd=stale; fwd-status=304; ttl=5; stored"])
                #expect(checked.last?.events == ["cache.revalidation"], "the revalidation is an event of the request's span")

                // The origin saw each network request's trace context: the trace of the request's span.
                let traceparents = net.origin.receivedRequests.map { $0.header("traceparent") }
                #expect(traceparents.count == 3)
                try #require(fresh.count == 2 && checked.count == 2)
                let networkSpans = [fresh[0], checked[0], checked[1]]
                for (traceparent, span) in zip(traceparents, networkSpans) {
                    let fields = traceparent?.split(separator: "-").map(String.init) ?? []
                    #expect(fields.count == 4 && fields.first == "00", "a W3C traceparent: \(traceparent ?? "none")")
                    #expect(fields.dropFirst().first == span.ids.traceID, "the request span's trace")
                    if kind == .curl { #expect(fields.dropFirst(2).first == span.ids.spanID, "libcurl sends the request span itself") }
                }
            }
        }
    }

    @Test("a background revalidation is a client span of its own, a child of the stale hit's span", arguments: TransportKind.allCases)
    func backgroundRevalidation(kind: TransportKind) async throws {
        let tracer = RecordingTracer()
        try await withTracer(tracer) {
            try await withNetwork(through: kind) { net in
                net.origin.route("/swr", LoopbackRoute(headers: [("Cache-Control", "max-age=1, stale-while-revalidate=100")], body: "s", etag: "\"s\""))
                _ = try await net.get("/swr")
                net.clock.advance(by: 10)
                #expect(try await net.get("/swr").cacheStatus == .stale)
                await net.client.waitForBackgroundRevalidations()

                let spans = tracer.spans(urlPrefix: net.origin.url("/swr")).filter { $0.text("http.cache.status") != nil }
                let stale = try #require(spans.first { $0.text("http.cache.status")?.hasPrefix("hit; ttl=-") == true })
                #expect(stale.events.contains("cache.background_revalidation"))
                let background = try #require(spans.first { $0.text("cachechain.revalidation") == "background" })
                #expect(background.kind == .client && background.name == "GET")
                #expect(background.ids.parentSpanID == stale.ids.spanID && background.ids.traceID == stale.ids.traceID)
                #expect(background.text("http.cache.status") == "fwd=stale; fwd-status=304; ttl=1; stored")
                #expect(background.events == ["cache.revalidation"])
            }
        }
    }

    @Test("a followed redirect is a client span of its own, with http.request.resend_count, and sends its own trace context")
    func redirectHops() async throws {
        let tracer = RecordingTracer()
        try await withTracer(tracer) {
            try await withNetwork { net in
                net.origin.route("/moved", LoopbackRoute(status: 302, headers: [("Location", "/target")], body: "moved"))
                net.origin.route("/target", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "here"))
                #expect(try await net.get("/moved").body.string == "here")

                let request = try #require(tracer.allSpans.first { $0.text("url.full") == net.origin.url("/moved") })
                let hop = try #require(tracer.allSpans.first { $0.text("url.full") == net.origin.url("/target") })
                #expect(hop.kind == .client && hop.name == "GET")
                #expect(hop.text("http.request.resend_count") == "1")
                #expect(hop.text("http.response.status_code") == "200")
                #expect(hop.ids.parentSpanID == request.ids.spanID && hop.ids.traceID == request.ids.traceID)
                let sent = try #require(net.origin.receivedRequests.last { $0.path == "/target" }?.header("traceparent"))
                #expect(sent.contains(hop.ids.spanID), "the hop went out with the request span's context: \(sent)")
            }
        }
    }

    @Test("without a tracer: no span and no trace context sent")
    func noTracer() async throws {
        try await withNetwork { net in
            net.origin.route("/plain", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "plain"))
            #expect(net.client.configuration.tracer == nil)
            _ = try await net.get("/plain")
            #expect(net.origin.receivedRequests.last?.header("traceparent") == nil)
        }
    }

    @Test("url.full carries no user information; an error status marks the span")
    func credentialsAndErrors() async throws {
        let tracer = RecordingTracer()
        try await withTracer(tracer) {
            try await withNetwork { net in
                net.origin.route("/missing", LoopbackRoute(status: 404, body: "no"))
                var request = try HTTPRequest(url: net.origin.url("/missing"))
                request.authority = "user:secret@" + (request.authority ?? "")
                _ = try? await net.client.data(for: request)
                let span = try #require(tracer.allSpans.first { $0.text("url.full")?.hasSuffix("/missing") == true })
                #expect(span.text("url.full") == net.origin.url("/missing"))
                #expect(span.status?.code == .error)
            }
        }
    }
}
