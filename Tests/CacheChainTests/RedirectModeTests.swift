import CacheChain
import CacheChainTesting
import HTTPTypes
import Testing

@Suite("Per-request redirect mode and context values")
struct RedirectModeTests {
    private func request(_ path: String) -> PipelineRequest {
        PipelineRequest(head: HTTPRequest(method: .get, scheme: "http", authority: "origin.test", path: path))
    }

    @Test("without a mode, RedirectInterceptor follows the 302")
    func followsByDefault() async throws {
        let harness = Harness(outer: [RedirectInterceptor()])
        harness.origin.route("/old", status: 302, fields: [("Location", "/new")], body: "moved")
        harness.origin.route("/new", fields: [("Cache-Control", "max-age=60")], body: "here")
        let response = try await harness.client.send(request("/old"))
        #expect(response.head.status.code == 200)
        #expect(response.body.string == "here")
        #expect(harness.origin.requestCount(for: "/new") == 1)
    }

    @Test("Mode.manual in the request's values returns the 3xx with its body and never requests the target")
    func manualReturnsTheRedirect() async throws {
        let harness = Harness(outer: [RedirectInterceptor()])
        harness.origin.route("/old", status: 302, fields: [("Location", "/new")], body: "moved")
        harness.origin.route("/new", fields: [], body: "here")
        var values = ContextValues()
        values[RedirectInterceptor.ModeKey.self] = .manual
        let response = try await harness.client.send(request("/old"), values: values)
        #expect(response.head.status.code == 302)
        #expect(response.head.headerFields[.location] == "/new")
        #expect(response.body.string == "moved")
        #expect(harness.origin.requestCount(for: "/new") == 0)
        // The values live for that request only: the next one follows again.
        let followed = try await harness.client.send(request("/old"))
        #expect(followed.body.string == "here")
    }
}
