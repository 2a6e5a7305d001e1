import CacheChain
import CacheChainLogging
import CacheChainTesting
import HTTPTypes
import InMemoryLogging
import Logging
import Testing

@Suite("Logging plugin")
struct LoggingPluginTests {
    @Test("one line per decision with reason codes; no bodies, cookies, Authorization or query values")
    func decisionLines() async throws {
        let handler = InMemoryLogHandler()
        let logger = Logger(label: "test.cache") { _ in handler }
        let origin = ScriptedTransport()
        origin.route("/a?token=SECRET-QUERY", fields: [("Cache-Control", "max-age=60"), ("Set-Cookie", "session=SECRET-COOKIE")], body: "SECRET-BODY")
        let client = HTTPCacheClient(
            transport: origin,
            configuration: .init(events: .logging(to: logger), outerInterceptors: [DecisionLoggingInterceptor(logger: logger)])
        )
        var request = HTTPRequest(method: .get, scheme: "http", authority: "origin.test", path: "/a?token=SECRET-QUERY")
        request.headerFields[.authorization] = "Bearer SECRET-AUTH"
        request.headerFields[.cookie] = "c=SECRET-COOKIE"
        _ = try await client.data(for: request)
        _ = try await client.data(for: request)

        let decisions = handler.entries.filter { $0.message.description == "cache decision" }
        #expect(decisions.count == 2)
        #expect(decisions.map { $0.metadata["cache_status"]?.description } == ["miss", "hit"])
        #expect(decisions.first?.metadata["url"]?.description == "http://origin.test/a?…")
        #expect(decisions.last?.metadata["reasons"]?.description.isEmpty == false)
        let everything = handler.entries.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")
        for secret in ["SECRET-QUERY", "SECRET-COOKIE", "SECRET-BODY", "SECRET-AUTH"] {
            #expect(!everything.contains(secret), "\(secret) leaked into the logs")
        }
    }

    @Test("a failed request is logged at error level with the error code")
    func failureLine() async throws {
        let handler = InMemoryLogHandler()
        let logger = Logger(label: "test.cache") { _ in handler }
        let origin = ScriptedTransport()
        origin.setDown(true)
        let client = HTTPCacheClient(
            transport: origin,
            configuration: .init(outerInterceptors: [DecisionLoggingInterceptor(logger: logger)])
        )
        let thrown = await #expect(throws: (any Error).self) {
            try await client.data(for: HTTPRequest(method: .get, scheme: "http", authority: "origin.test", path: "/down"))
        }
        let line = try #require(handler.entries.first { $0.level == .error })
        let error = try #require(thrown)
        let expectedCode = (error as? CacheChainError)?.shortDescription ?? "\(type(of: error))"
        #expect(line.metadata["error"]?.description == expectedCode)
        #expect(line.metadata["url"]?.description == "http://origin.test/down")
    }
}
