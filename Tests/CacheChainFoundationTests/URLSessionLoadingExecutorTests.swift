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
}
