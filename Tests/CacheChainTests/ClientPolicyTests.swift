import CacheChain
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

@Suite("Client: Apple's cache policies")
struct ClientPolicyTests {
    private func primed(_ path: String = "/p") async throws -> Harness {
        let h = Harness()
        h.origin.route(path, fields: [("Cache-Control", "max-age=10"), ("Date", h.dateField)], body: "stored", etag: "\"e\"")
        _ = try await h.get(path)
        return h
    }

    @Test("returnCacheDataDontLoad never touches the origin: hit when stored, not-in-cache error otherwise")
    func dontLoad() async throws {
        let h = try await primed()
        h.clock.advance(by: 3600)
        let stale = try await h.get("/p", policy: .returnCacheDataDontLoad)
        #expect(stale.body.string == "stored")
        let error = await #expect(throws: CacheChainError.self) {
            try await h.get("/cold", policy: .returnCacheDataDontLoad)
        }
        #expect(error?.code == .notInCache)
        #expect(h.origin.requestCount(for: "/p") == 1)
        #expect(h.origin.requestCount(for: "/cold") == 0)
    }

    @Test("returnCacheDataElseLoad serves a stale entry without the origin, and loads a cold URL")
    func elseLoad() async throws {
        let h = try await primed()
        h.clock.advance(by: 3600)
        h.origin.setDown(true)
        let stale = try await h.get("/p", policy: .returnCacheDataElseLoad)
        #expect(stale.body.string == "stored")
        h.origin.setDown(false)
        h.origin.route("/cold", fields: [], body: "fetched")
        let cold = try await h.get("/cold", policy: .returnCacheDataElseLoad)
        #expect(cold.cacheStatus == .miss)
        #expect(cold.body.string == "fetched")
    }

    @Test("reloadIgnoringLocalCacheData goes to the origin even when fresh, and still stores")
    func reloadIgnoringLocal() async throws {
        let h = try await primed()
        h.origin.route("/p", fields: [("Cache-Control", "max-age=10")], body: "newer", etag: "\"f\"")
        let reloaded = try await h.get("/p", policy: .reloadIgnoringLocalCacheData)
        #expect(reloaded.cacheStatus == .miss)
        #expect(reloaded.body.string == "newer")
        #expect(h.origin.receivedRequests.map(\.head).last?.headerFields[.ifNoneMatch] == nil)
        let hit = try await h.get("/p")
        #expect(hit.body.string == "newer")
    }

    @Test("reloadIgnoringLocalAndRemoteCacheData asks intermediaries not to answer from their caches either")
    func reloadIgnoringRemote() async throws {
        let h = try await primed()
        _ = try await h.get("/p", policy: .reloadIgnoringLocalAndRemoteCacheData)
        let sent = try #require(h.origin.receivedRequests.map(\.head).last)
        #expect(sent.headerFields[.cacheControl] == "no-cache")
        #expect(sent.headerFields[HTTPField.Name("Pragma")!] == "no-cache")
    }

    @Test("reloadRevalidatingCacheData validates even a fresh entry")
    func reloadRevalidating() async throws {
        let h = try await primed()
        let response = try await h.get("/p", policy: .reloadRevalidatingCacheData)
        #expect(response.cacheStatus == .revalidated)
        #expect(h.origin.receivedRequests.map(\.head).last?.headerFields[.ifNoneMatch] == "\"e\"")
    }

    @Test("the client default policy applies when a request names none")
    func clientDefault() async throws {
        let origin = ScriptedTransport()
        origin.route("/d", fields: [("Cache-Control", "max-age=60")], body: "x")
        let client = HTTPCacheClient(
            transport: origin,
            configuration: .init(requestCachePolicy: .reloadIgnoringLocalCacheData)
        )
        _ = try await client.data(for: HTTPRequest(url: "http://origin.test/d"))
        let second = try await client.data(for: HTTPRequest(url: "http://origin.test/d"))
        #expect(second.cacheStatus == .miss)
        let third = try await client.data(for: HTTPRequest(url: "http://origin.test/d"), cachePolicy: .useProtocolCachePolicy)
        #expect(third.cacheStatus == .hit)
    }

    @Test("a request's own cache policy and timeout win over the client's defaults; send's arguments over both")
    func requestOwnPolicyAndTimeout() async throws {
        let origin = ScriptedTransport()
        origin.route("/o", fields: [("Cache-Control", "max-age=60")], body: "x")
        let client = HTTPCacheClient(
            transport: origin,
            configuration: .init(requestCachePolicy: .reloadIgnoringLocalCacheData, timeout: .seconds(30))
        )
        let head = try HTTPRequest(url: "http://origin.test/o")
        _ = try await client.send(PipelineRequest(head: head))
        let own = try await client.send(PipelineRequest(head: head, cachePolicy: .useProtocolCachePolicy, timeout: .seconds(7)))
        #expect(own.cacheStatus == .hit)
        let overridden = try await client.send(
            PipelineRequest(head: head, cachePolicy: .useProtocolCachePolicy, timeout: .seconds(7)),
            cachePolicy: .reloadIgnoringLocalCacheData,
            timeout: .seconds(3)
        )
        #expect(overridden.cacheStatus == .miss)
        _ = try await client.send(PipelineRequest(head: head, cachePolicy: .reloadRevalidatingCacheData, timeout: .seconds(7)))
        // What reached the transport: the configuration's timeout, the send argument's, the request's own (the hit
        // sent nothing).
        #expect(origin.receivedRequests.map(\.timeout) == [.seconds(30), .seconds(3), .seconds(7)])
        #expect(origin.receivedRequests.map(\.cachePolicy) == [.reloadIgnoringLocalCacheData, .reloadIgnoringLocalCacheData, .reloadRevalidatingCacheData])
        #expect(PipelineRequest(head: head).effectiveCachePolicy == .useProtocolCachePolicy)
    }

    @Test("a request without scheme or authority is a clear invalid-request error")
    func invalidRequest() async throws {
        let h = Harness()
        let error = await #expect(throws: CacheChainError.self) {
            try await h.client.data(for: HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/x"))
        }
        #expect(error?.code == .invalidRequest)
        #expect(throws: CacheChainError.self) { try HTTPRequest(url: "ftp://example.com/file") }
        #expect(throws: CacheChainError.self) { try HTTPRequest(url: "/relative") }
        let parsed = try HTTPRequest(url: "https://Example.com:8443/a/b?c=d#frag")
        #expect(parsed.authority == "Example.com:8443")
        #expect(parsed.path == "/a/b?c=d")
    }
}
