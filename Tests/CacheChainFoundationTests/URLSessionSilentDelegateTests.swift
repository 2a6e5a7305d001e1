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
            let task = net.session.dataTask(with: net.url("/kept"))
            task.resume()
            try await waitUntil("the delegate was asked whether to cache") { delegate.state.withLock { $0.cachingQuestions } == 1 }
            try await Task.sleep(for: .milliseconds(100))
            #expect(delegate.state.withLock { $0.completions } == 0, "the task waits for the delegate's answer")
            task.cancel()
            try await waitUntil("the task completed") { delegate.state.withLock { $0.completions } == 1 }
            delegate.answerLate()
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await net.client.cachedResponse(for: HTTPRequest(url: net.origin.url("/kept"))) == nil)
        }
    }

    @Test("willPerformHTTPRedirection not answered: cancel() ends the task; a later answer follows nothing")
    func redirectQuestionCancelled() async throws {
        let delegate = SilentDelegate()
        try await withLoopbackSession(delegate: delegate) { net in
            net.origin.route("/old", LoopbackRoute(status: 302, headers: [("Location", "/new")], body: "see /new"))
            net.origin.route("/new", LoopbackRoute(body: "new place"))
            let task = net.session.dataTask(with: net.url("/old"))
            task.resume()
            try await waitUntil("the delegate was asked about the redirect") { delegate.state.withLock { $0.redirectQuestions } == 1 }
            try await Task.sleep(for: .milliseconds(100))
            #expect(delegate.state.withLock { $0.completions } == 0, "the task waits for the delegate's answer")
            task.cancel()
            try await waitUntil("the task completed") { delegate.state.withLock { $0.completions } == 1 }
            delegate.answerLate()
            try await Task.sleep(for: .milliseconds(300))
            #expect(net.origin.requestCount(for: "/new") == 0)
        }
    }
}

/// Records the questions it is asked and answers them only when told (``answerLate()``): keep, follow.
private final class SilentDelegate: NSObject, URLSessionDataDelegate, Sendable {
    struct State {
        var cachingQuestions = 0
        var redirectQuestions = 0
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
            $0.cachingQuestions += 1
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
            $0.redirectQuestions += 1
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
