import CacheChain
import CacheChainCore
@testable import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import HTTPTypes
import Testing

/// A request whose HTTP/2 connection or stream the origin dropped is sent again when that is safe
/// (`CurlTransport.mayRetry(_:after:streaming:)`).
@Suite("CurlTransport: requests sent again after the origin dropped their HTTP/2 connection", .tags(.integration))
struct CurlConnectionRetryTests {
    @Test("960 misses, 64 at a time, over HTTPS/2 to an origin with rapid-reset protection: none fails")
    func sustainedHTTP2Load() async throws {
        // libcurl 7.88 resets (RST_STREAM) most streams it finished reading before the origin's END_STREAM frame;
        // NIOHTTP2's rapid-reset protection (200 resets in 30 s) then closes the connection under the streams in
        // flight. Without the retry, 8 to 16 of 1,920 such requests failed with libcurl's code 16 (56 under load) on
        // the 2-core VM.
        try await withNetwork(.https2) { net in
            net.origin.route("/small", LoopbackRoute(headers: [("Cache-Control", "no-store")], body: .generated(count: 512)))
            let failures = LockedValue<[String]>([])
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<64 {
                    group.addTask {
                        for round in 0..<15 {
                            do {
                                let response = try await net.get("/small?n=\(round * 64 + task)")
                                if response.body.count != 512 { failures.withLock { $0.append("short body: \(response.body.count)") } }
                            } catch {
                                failures.withLock { $0.append("\(error)") }
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(failures.withLock { $0 } == [])
            #expect(net.origin.requestCount(for: "/small") >= 960)
        }
    }

    @Test("the rule: a safe method without a body, not streamed, after libcurl's code 16, 55, 56 or 92")
    func retryRule() throws {
        func failure(_ code: Int) -> CacheChainError {
            CacheChainError(.transportFailed, "libcurl failed for https://example.com/: Error in the HTTP2 framing layer (curl code \(code))")
        }
        let get = PipelineRequest(head: try HTTPRequest(url: "https://example.com/"))
        #expect(CurlTransport.mayRetry(get, after: failure(16), streaming: false))
        #expect(CurlTransport.mayRetry(get, after: failure(92), streaming: false))
        #expect(CurlTransport.mayRetry(get, after: failure(55), streaming: false))
        #expect(CurlTransport.mayRetry(get, after: failure(56), streaming: false))
        var head = get
        head.head.method = .head
        #expect(CurlTransport.mayRetry(head, after: failure(16), streaming: false))

        #expect(!CurlTransport.mayRetry(get, after: failure(7), streaming: false), "a refused connection is not retried here")
        #expect(!CurlTransport.mayRetry(get, after: failure(16), streaming: true), "part of the body may have reached the caller")
        #expect(!CurlTransport.mayRetry(get, after: CancellationError(), streaming: false))
        #expect(!CurlTransport.mayRetry(get, after: CacheChainError(.timedOut, "timed out"), streaming: false))
        var post = get
        post.head.method = .post
        #expect(!CurlTransport.mayRetry(post, after: failure(16), streaming: false), "an unsafe method is never sent twice")
        var withBody = get
        withBody.body = PipelineBody([1])
        #expect(!CurlTransport.mayRetry(withBody, after: failure(16), streaming: false))
    }
}
