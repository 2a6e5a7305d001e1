import CacheChain
import CacheChainFoundation
import CacheChainLoopback
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Where a URLSession task's loading runs (issue 43): on the task's work queue, where FoundationNetworking calls
/// `startLoading` and wants its client called, not on Swift's cooperative pool with a hop back to the queue.
@Suite("URLSession through CacheChain: where a task's loading runs")
struct URLSessionLoadingExecutorTests {
    /// Records, for each request through the chain, whether the running task has a task executor of its own.
    final class ExecutorRecorder: HTTPInterceptor {
        let hasTaskExecutor = LockedValue<[Bool]>([])

        func intercept(_ request: PipelineRequest, context: InterceptorContext, next: Next) async throws -> PipelineResponse {
            let preferred = withUnsafeCurrentTask { $0?.unownedTaskExecutor != nil }
            hasTaskExecutor.withLock { $0.append(preferred) }
            return try await next(request, context)
        }
    }

    @Test("a miss and a hit run their pipeline on the task's work queue (not on Swift's cooperative pool)")
    func loadingRunsOnTheWorkQueue() async throws {
        let recorder = ExecutorRecorder()
        try await withLoopbackSession(outer: [recorder]) { net in
            net.origin.route("/doc", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "the doc"))
            for _ in 0..<4 {
                let body = try await net.fetch("/doc").body
                #expect(body == "the doc")
            }
            #expect(net.origin.requestCount(for: "/doc") == 1, "one miss, then hits")
            #expect(recorder.hasTaskExecutor.withLock { $0 } == [true, true, true, true],
                    "each loading ran with the work queue's executor as its task executor")
        }
    }

    @Test("a task's session, queue and body are read from the remembered positions, without listing every property of each task")
    func noFullReflectionPerTask() async throws {
        try await withLoopbackSession { net in
            net.origin.route("/doc", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "the doc"))
            net.origin.route("/echo") { request in LoopbackRoute(body: "got \(request.body.count) bytes") }
            _ = try await net.fetch("/doc")
            let listingsBefore = URLSessionBridgeCounters.fullTaskListings
            for _ in 0..<5 {
                let body = try await net.fetch("/doc").body
                #expect(body == "the doc")
            }
            let (data, _) = try await net.session.upload(for: net.request("/echo", method: "POST"), from: Data("a body".utf8))
            #expect(String(decoding: data, as: UTF8.self) == "got 6 bytes", "the upload task's body was found")
            #expect(URLSessionBridgeCounters.fullTaskListings == listingsBefore)
        }
    }
}
