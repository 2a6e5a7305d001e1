import CacheChain
import CacheChainCurl
import CacheChainLoopback
import HTTPTypes
import InMemoryLogging
import Logging
import Testing

/// `logger:` on `data`, `send` and `stream`, as AsyncHTTPClient's `execute(_:deadline:logger:)`: the request's
/// log lines (the interceptors' and the transport's) go to it, the client's logger when none is given (issue
/// 44.2). Over libcurl against a loopback origin.
@Suite("A per-request logger receives that request's log lines", .tags(.integration))
struct PerRequestLoggerTests {
    private static func logger(_ label: String, _ handler: InMemoryLogHandler) -> Logger {
        var logger = Logger(label: label) { _ in handler }
        logger.logLevel = .debug
        return logger
    }

    private static func decisions(_ handler: InMemoryLogHandler) -> Int {
        handler.entries.count { $0.message.description == "cache decision" }
    }

    @Test("data(for:logger:), send(_:logger:) and stream(_:logger:) log to the given logger; without one, to the client's")
    func perRequestLogger() async throws {
        let origin = try await LoopbackOrigin.start()
        origin.route("/doc", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: "doc"))
        let clientLines = InMemoryLogHandler()
        let client = HTTPCacheClient(
            transport: CurlTransport(),
            configuration: .init(storage: MemoryStorage(capacity: 1 << 20), logger: Self.logger("client", clientLines))
        )
        let request = try HTTPRequest(url: origin.url("/doc"))

        let dataLines = InMemoryLogHandler()
        _ = try await client.data(for: request, logger: Self.logger("request-1", dataLines))
        #expect(Self.decisions(dataLines) == 1, "\(dataLines.entries)")
        #expect(clientLines.entries.isEmpty, "nothing of that request went to the client's logger: \(clientLines.entries)")

        let sendLines = InMemoryLogHandler()
        _ = try await client.send(PipelineRequest(head: request), logger: Self.logger("request-2", sendLines))
        #expect(Self.decisions(sendLines) == 1)

        let streamLines = InMemoryLogHandler()
        let body = try await client.stream(request, logger: Self.logger("request-3", streamLines)) { response in
            var bytes: [UInt8] = []
            for try await chunk in response.body { bytes += chunk }
            return bytes
        }
        #expect(body == Array("doc".utf8))
        #expect(Self.decisions(streamLines) == 1)

        _ = try await client.data(for: request)
        #expect(Self.decisions(clientLines) == 1, "without a logger, the client's")
        #expect(Self.decisions(dataLines) == 1 && Self.decisions(sendLines) == 1 && Self.decisions(streamLines) == 1)
        try await client.shutdown()
        try await origin.shutdown()
    }
}
