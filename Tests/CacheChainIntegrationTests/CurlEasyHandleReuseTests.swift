import CacheChain
import CacheChainCore
@testable import CacheChainCurl
import CacheChainLoopback
import Foundation
import HTTPTypes
import Testing

/// `CurlTransport` reuses the easy handles of finished transfers (reset to libcurl's defaults): nothing of one
/// request's options reaches the next.
@Suite("CurlTransport reuses easy handles", .tags(.integration))
struct CurlEasyHandleReuseTests {
    @Test("sequential requests of different shapes share one reset handle and each is sent as it was written")
    func reusedHandlesCarryNothingOver() async throws {
        let origin = try await LoopbackOrigin.start()
        origin.route("/r", handler: { request in
            LoopbackRoute(body: "\(request.method) \(request.body.count)")
        })
        let transport = CurlTransport(configuration: .init(loopCount: 1))
        let context = InterceptorContext(storage: MemoryStorage(capacity: 1))
        let url = origin.url("/r")
        var head = try HTTPRequest(url: url)
        head.method = .head
        var post = try HTTPRequest(url: url)
        post.method = .post
        post.headerFields[HTTPField.Name("X-Only-Once")!] = "1"
        post.headerFields[.acceptEncoding] = "identity"

        let headResponse = try await transport.send(PipelineRequest(head: head), context: context)
        #expect(headResponse.body.count == 0)
        let postResponse = try await transport.send(PipelineRequest(head: post, body: PipelineBody(string: "four")), context: context)
        #expect(postResponse.body.string == "POST 4")
        let getResponse = try await transport.send(PipelineRequest(head: try HTTPRequest(url: url)), context: context)
        #expect(getResponse.body.string == "GET 0", "a GET after a HEAD and a POST must have a body and no method left over")

        let received = origin.receivedRequests
        #expect(received.map(\.method) == ["HEAD", "POST", "GET"])
        let last = try #require(received.last)
        #expect(last.header("X-Only-Once") == nil, "a header of the previous request was sent again")
        #expect(last.body.isEmpty)
        #expect(last.header("Accept-Encoding") != nil, "the transport's own Accept-Encoding is back after a caller's")
        // The three transfers ran one after another on one loop: one handle, recycled each time.
        #expect(transport.idleEasyHandleCount == 1)
        await transport.shutdown()
        try await origin.shutdown()
    }
}
