import CacheChainCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session delegate's decisions about one task, asked the way FoundationNetworking asks its delegate:
/// on the session's `delegateQueue`, with the real `session` and task, through a completion handler.
///
/// FoundationNetworking never asks these questions for a custom `URLProtocol` (it calls
/// `willCacheResponse` only for its own loader, and traps in `wasRedirectedTo`), so `CacheChainURLProtocol`
/// asks them itself. An answer the delegate never gives leaves the task waiting, as on Apple's platforms;
/// cancelling the task stops the wait (the response is then not stored and the redirect not followed).
struct SessionDelegateCalls: Sendable {
    /// The task's session (reached through ``TaskSurroundings``).
    let session: URLSession
    let task: URLSessionTask
    /// `task.delegate`: the task's own delegate, else the session's.
    let delegate: any URLSessionTaskDelegate

    /// The calls for a task, or `nil` when it has no task delegate.
    /// - Parameters:
    ///   - task: The task.
    ///   - session: Its session.
    init?(task: URLSessionTask, session: URLSession?) {
        guard let session, let delegate = task.delegate else { return nil }
        self.session = session
        self.task = task
        self.delegate = delegate
    }

    /// What the delegate decided about a proposed cached response.
    enum CacheDecision: Sendable {
        /// Store the proposal as it is (the delegate handed it back, or has no say).
        case keep
        /// Store nothing (the delegate answered `nil`).
        case veto
        /// Store what the delegate made instead of `proposed`.
        case replace(proposed: CachedURLResponse, decided: CachedURLResponse)
    }

    /// `urlSession(_:dataTask:willCacheResponse:completionHandler:)`, for data and upload tasks whose delegate
    /// is a data delegate (the protocol's default implementation keeps the proposal).
    ///
    /// The proposal is made on the delegate queue, where the call happens: making it reads the body, which
    /// for a large response means reading its spool file, and that never runs on Swift's cooperative pool.
    /// - Parameter makeProposal: Builds the `CachedURLResponse` to propose; `nil` when it cannot be built
    ///   (the proposal is then kept without asking).
    /// - Returns: The delegate's decision.
    func willCacheResponse(proposing makeProposal: @escaping @Sendable () -> CachedURLResponse?) async -> CacheDecision {
        guard let dataTask = task as? URLSessionDataTask, let dataDelegate = delegate as? any URLSessionDataDelegate else {
            return .keep
        }
        let session = session
        return await Self.answer(ifCancelled: .veto) { reply in
            session.delegateQueue.addOperation {
                guard let proposed = makeProposal() else { return reply(.keep) }
                dataDelegate.urlSession(session, dataTask: dataTask, willCacheResponse: proposed) { decided in
                    guard let decided else { return reply(.veto) }
                    reply(decided === proposed ? .keep : .replace(proposed: proposed, decided: decided))
                }
            }
        }
    }

    /// `urlSession(_:task:willPerformHTTPRedirection:newRequest:completionHandler:)`.
    /// - Parameters:
    ///   - response: The redirect response.
    ///   - request: The request that follows it.
    /// - Returns: The request to send (possibly changed), or `nil` to end with the redirect response itself.
    func willPerformRedirection(_ response: HTTPURLResponse, newRequest request: URLRequest) async -> URLRequest? {
        let (session, task, delegate) = (session, task, delegate)
        return await Self.answer(ifCancelled: nil) { reply in
            session.delegateQueue.addOperation {
                delegate.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: request) { reply($0) }
            }
        }
    }

    /// Waits for a completion handler's single answer; a second call is ignored, and cancellation answers
    /// `ifCancelled` at once.
    private static func answer<Answer: Sendable>(
        ifCancelled: Answer,
        _ ask: (@escaping @Sendable (Answer) -> Void) -> Void
    ) async -> Answer {
        let waiter = AnswerWaiter<Answer>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard waiter.install(continuation, ifCancelled: ifCancelled) else { return }
                ask { waiter.resume(with: $0) }
            }
        } onCancel: {
            waiter.resume(with: ifCancelled)
        }
    }
}

/// A continuation resumed exactly once: by the first answer or by cancellation, whichever comes first.
///
/// Swift marks a task cancelled before it runs its cancellation handlers, and installing and resuming hold
/// one lock: so either ``install(_:ifCancelled:)`` sees the cancellation and resumes at once, or the handler
/// finds the continuation installed and resumes it. Whatever comes second finds nothing to resume.
private final class AnswerWaiter<Answer: Sendable>: Sendable {
    private let continuation = LockedValue<CheckedContinuation<Answer, Never>?>(nil)

    /// Installs the continuation; resumes it at once with `ifCancelled` (and returns `false`) when the task
    /// is already cancelled.
    func install(_ continuation: CheckedContinuation<Answer, Never>, ifCancelled: Answer) -> Bool {
        let isCancelled = self.continuation.withLock { installed in
            guard !Task.isCancelled else { return true }
            installed = continuation
            return false
        }
        if isCancelled { continuation.resume(returning: ifCancelled) }
        return !isCancelled
    }

    /// Resumes with an answer if nothing has yet; later calls do nothing.
    func resume(with answer: Answer) {
        let installed = continuation.withLock { installed in
            defer { installed = nil }
            return installed
        }
        installed?.resume(returning: answer)
    }
}
