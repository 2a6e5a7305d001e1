import CacheChainBatch
import CacheChainLoopback
import Foundation
import Testing

extension Tag {
    /// Tests that run the `cachechain` executable against a loopback origin.
    @Tag static var integration: Self
}

/// Shared steps of the subprocess suites: a directory per test, a session with its handshake and end
/// checked, requests and replies.
protocol BatchSubprocessSuite {}

extension BatchSubprocessSuite {
    /// A directory of the test's own.
    func makeDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cachechain-batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Starts `cachechain batch`, checks its hello (and hands it to `checkHello`), runs `body`, ends the session
    /// and checks the exit.
    func withBatch(
        _ arguments: [String] = [],
        tls: Bool = false,
        checkHello: (JSONValue) -> Void = { _ in },
        _ body: (BatchProcess, LoopbackOrigin, URL) async throws -> Void
    ) async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = try await LoopbackOrigin.start(tls: tls)
        let batch = try BatchProcess(["batch"] + arguments, directory: directory)
        do {
            try batch.send(#"{"type":"hello","protocol":1,"client":"swift-testing"}"#)
            let hello = try await batch.nextMessage()
            #expect(hello["type"] == .string("hello"))
            #expect(hello["name"] == .string("cachechain"))
            #expect(hello["concurrent"] == .bool(true))
            checkHello(hello)
            try await body(batch, origin, directory)
            if !batch.hasSentEnd { try batch.end() }
            #expect(await batch.nextLine() == nil, "no output after the last reply")
            #expect(await batch.exitStatus() == 0, "stderr: \(batch.stderr)")
        } catch {
            batch.terminate()
            try? await origin.shutdown()
            throw error
        }
        try await origin.shutdown()
    }

    func request(_ id: Int, _ url: String, _ extra: String = "") -> String {
        #"{"type":"request","id":\#(id),"method":"GET","url":"\#(url)","headers":[],"body":null\#(extra)}"#
    }

    /// Sends one request and returns its reply (for sequential use: nothing else in flight).
    func roundTrip(_ batch: BatchProcess, _ id: Int, _ url: String, _ extra: String = "") async throws
        -> JSONValue
    {
        try batch.send(request(id, url, extra))
        let reply = try await batch.nextMessage()
        #expect(reply["id"] == .integer(Int64(id)))
        return reply
    }

    func header(_ reply: JSONValue, _ name: String) -> String? {
        guard case .array(let pairs)? = reply["headers"] else { return nil }
        for case .array(let pair) in pairs where pair.count == 2 {
            if case .string(let field) = pair[0], field.lowercased() == name.lowercased(),
                case .string(let value) = pair[1]
            {
                return value
            }
        }
        return nil
    }
}
