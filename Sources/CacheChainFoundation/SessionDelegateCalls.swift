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
    /// The task.
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
            waiter.cancel(answering: ifCancelled)
        }
    }
}

/// A continuation resumed exactly once: by the first answer or by cancellation, whichever comes first.
private final class AnswerWaiter<Answer: Sendable>: Sendable {
    private enum State {
        case waiting
        case installed(CheckedContinuation<Answer, Never>)
        case cancelled
        case done
    }

    private let state = LockedValue(State.waiting)

    /// Installs the continuation; resumes it at once (and returns `false`) when cancellation came first.
    func install(_ continuation: CheckedContinuation<Answer, Never>, ifCancelled: Answer) -> Bool {
        let wasCancelled = state.withLock { state in
            if case .cancelled = state {
                state = .done
                return true
            }
            state = .installed(continuation)
            return false
        }
        if wasCancelled { continuation.resume(returning: ifCancelled) }
        return !wasCancelled
    }

    /// Resumes with an answer, once.
    func resume(with answer: Answer) {
        take()?.resume(returning: answer)
    }

    /// Resumes with `answer` if still waiting, or marks the wait cancelled before it was installed.
    func cancel(answering answer: Answer) {
        let continuation = state.withLock { state -> CheckedContinuation<Answer, Never>? in
            switch state {
            case .waiting:
                state = .cancelled
                return nil
            case .installed(let continuation):
                state = .done
                return continuation
            case .cancelled, .done:
                return nil
            }
        }
        continuation?.resume(returning: answer)
    }

    private func take() -> CheckedContinuation<Answer, Never>? {
        state.withLock { state in
            guard case .installed(let continuation) = state else { return nil }
            state = .done
            return continuation
        }
    }
}
