import CacheChain
import CacheChainFoundation
import CacheChainLoopback
import CacheChainTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Testing

/// No request waits on another's delegate (issue 46.4): a task coalesced with one whose `willCacheResponse` never
/// answers leaves at its own timeout, while the held task is still waiting.
@Suite("URLSession through CacheChain: a coalesced task leaves at its own timeout")
struct URLSessionCoalescedTimeoutTests {
    @Test("a task in another session, waiting on a flight held by a delegate that never answers, times out by itself")
    func waiterLeavesAtItsOwnTimeout() async throws {
        let delegate = NeverAnsweringCacheDelegate()
        try await withLoopbackSession(delegate: delegate) { net in
            net.origin.route("/held", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "held"))
            // The same timeout for both: requests that give up at different times are not coalesced.
            var timed = net.request("/held")
            timed.timeoutInterval = 2
            let request = timed
            let held = net.session.dataTask(with: request)
            held.resume()
            try await waitUntil("the held task's delegate was asked willCacheResponse") { delegate.state.withLock { $0.asked } }
            let other = URLSession(configuration: URLSessionConfiguration.ephemeral.usingCacheChain(net.client))
            defer { other.invalidateAndCancel() }
            // The rescuer's wait is a window for what must not happen (the other task waiting on the held one): it
            // only ends the test of a defective build, and never fails a correct one.
            let outcome = await withTaskGroup(of: Outcome?.self) { group in
                group.addTask {
                    var failure: URLError.Code?
                    do {
                        _ = try await other.data(for: request)
                    } catch {
                        failure = (error as? URLError)?.code ?? .unknown
                    }
                    return Outcome(error: failure, heldTaskWasWaiting: delegate.state.withLock { $0.completions == 0 })
                }
                group.addTask {
                    try? await Task.sleep(for: .seconds(20))
                    if !Task.isCancelled { held.cancel() }
                    return nil
                }
                var outcome: Outcome?
                while let next = await group.next() {
                    if let next {
                        outcome = next
                        group.cancelAll()
                    }
                }
                return outcome
            }
            #expect(outcome?.error == .timedOut, "the coalesced task failed with its own timeout")
            #expect(outcome?.heldTaskWasWaiting == true, "it did not wait for the held task to end")
            #expect(net.origin.requestCount(for: "/held") == 1, "it waited on the held flight, then gave up")
            held.cancel()
            try await waitUntil("the held task completed") { delegate.state.withLock { $0.completions == 1 } }
        }
    }

    struct Outcome: Sendable {
        let error: URLError.Code?
        let heldTaskWasWaiting: Bool
    }
}

/// A delegate asked `willCacheResponse` that never answers; it counts completions.
private final class NeverAnsweringCacheDelegate: NSObject, URLSessionDataDelegate, Sendable {
    struct State {
        var asked = false
        var completions = 0
    }

    let state = LockedValue(State())

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        willCacheResponse proposedResponse: CachedURLResponse,
        completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void
    ) {
        state.withLock { $0.asked = true }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        state.withLock { $0.completions += 1 }
    }
}
