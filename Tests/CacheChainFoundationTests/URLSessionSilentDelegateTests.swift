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

/// A delegate that is asked and does not answer leaves the task waiting, as on Apple's platforms; `cancel()` ends
/// the wait: the response is not stored and the redirect not followed, even when the answer comes later.
@Suite("URLSession through CacheChain: a delegate that never answers")
struct URLSessionSilentDelegateTests {
    @Test("willCacheResponse not answered: cancel() ends the task; a later answer stores nothing")
    func cachingQuestionCancelled() async throws {
        let delegate = SilentDelegate()
        try await withLoopbackSession(delegate: delegate) { net in
            net.origin.route("/kept", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "origin"))
            try await cancelWhileAsked("/kept", question: "cache", net: net, delegate: delegate)
            #expect(try await net.client.cachedResponse(for: HTTPRequest(url: net.origin.url("/kept"))) == nil)
        }
    }

    @Test("willPerformHTTPRedirection not answered: cancel() ends the task; a later answer follows nothing")
    func redirectQuestionCancelled() async throws {
        let delegate = SilentDelegate()
        try await withLoopbackSession(delegate: delegate) { net in
            net.origin.route("/old", LoopbackRoute(status: 302, headers: [("Location", "/new")], body: "see /new"))
            net.origin.route("/new", LoopbackRoute(body: "new place"))
            try await cancelWhileAsked("/old", question: "redirect", net: net, delegate: delegate)
            #expect(net.origin.requestCount(for: "/new") == 0)
        }
    }

    /// Starts a task for `path`, waits until the delegate is asked `question`, checks that the task waits for the
    /// answer, cancels it, and gives the answer once the task has completed.
    ///
    /// The two sleeps are windows for something that must *not* happen (the task completing without an answer;
    /// a store or a hop after the late answer), so no event can replace them; they can only let a defect
    /// through, never fail a correct build.
    private func cancelWhileAsked(_ path: String, question: String, net: LoopbackSession, delegate: SilentDelegate) async throws {
        let task = net.session.dataTask(with: net.url(path))
        task.resume()
        try await waitUntil("the delegate was asked (\(question))") { delegate.state.withLock { $0.questions } == [question] }
        try await Task.sleep(for: .milliseconds(100))
        #expect(delegate.state.withLock { $0.completions } == 0, "the task waits for the delegate's answer")
        task.cancel()
        try await waitUntil("the task completed") { delegate.state.withLock { $0.completions } == 1 }
        delegate.answerLate()
        try await Task.sleep(for: .milliseconds(300))
    }
}

/// Records the questions it is asked and answers them only when told (``answerLate()``): keep, follow.
private final class SilentDelegate: NSObject, URLSessionDataDelegate, Sendable {
    struct State {
        /// The questions asked, in order: `cache` or `redirect`.
        var questions: [String] = []
        var completions = 0
        var lateAnswers: [@Sendable () -> Void] = []
    }

    let state = LockedValue(State())

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        willCacheResponse proposedResponse: CachedURLResponse,
        completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void
    ) {
        state.withLock {
            $0.questions.append("cache")
            $0.lateAnswers.append { completionHandler(proposedResponse) }
        }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        state.withLock {
            $0.questions.append("redirect")
            $0.lateAnswers.append { completionHandler(request) }
        }
    }

    /// Gives every question asked so far the answer that goes on: keep the proposal, follow the redirect.
    func answerLate() {
        for answer in state.withLock({ $0.lateAnswers }) { answer() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        state.withLock { $0.completions += 1 }
    }
}
