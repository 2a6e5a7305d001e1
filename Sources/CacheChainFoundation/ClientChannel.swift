import CacheChainCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The way back from a task's loading (a Swift task) to the `URLProtocolClient`, on the queue FoundationNetworking
/// uses for the task.
///
/// FoundationNetworking calls `startLoading` and `stopLoading` on the task's serial work queue and its own
/// loader calls the client there too; the channel does the same, so a delivery and a `stopLoading` never
/// overlap. After ``close()`` (from `stopLoading`, e.g. on cancel) nothing is delivered: FoundationNetworking
/// reports the cancellation itself. The protocol is released after the one delivery.
final class ClientChannel: @unchecked Sendable {  // invariant: `URLProtocol` (not Sendable) is only held in `target`'s lock and only called on `queue`, the task's serial work queue
    private let queue: DispatchQueue
    private let target: LockedValue<URLProtocol?>

    /// Creates the channel of a protocol instance.
    /// - Parameters:
    ///   - urlProtocol: The protocol whose client gets the outcome.
    ///   - queue: The task's work queue (a private serial queue when it cannot be reached).
    init(_ urlProtocol: URLProtocol, queue: DispatchQueue) {
        self.queue = queue
        self.target = LockedValue(urlProtocol)
    }

    /// Ends the channel: a later ``deliver(_:)`` does nothing.
    func close() {
        target.withLock { $0 = nil }
    }

    /// Hands the outcome to the client on the work queue: the response, its body in one piece and the end of
    /// loading, or the error.
    ///
    /// The body is handed over in one `didLoad` call because FoundationNetworking gives a completion handler
    /// (and `data(for:)`) only the last piece it was given. Reading it here keeps the read of a large body's
    /// spool or entry file off Swift's cooperative pool.
    /// - Parameter outcome: The outcome.
    func deliver(_ outcome: TaskOutcome) {
        queue.async { self.deliverOnQueue(outcome) }
    }

    /// Hands the outcome to the client at once. The caller runs on the work queue: a task whose executor is the
    /// queue's ``WorkQueueExecutor``, or ``deliver(_:)``'s block.
    /// - Parameter outcome: The outcome.
    func deliverOnQueue(_ outcome: TaskOutcome) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let urlProtocol = target.withLock({ target in defer { target = nil }; return target }),
            let client = urlProtocol.client
        else { return }
        switch outcome {
        case .loaded(let response, let body):
            let data: Data
            do {
                data = Data(try body.collect())
            } catch {
                client.urlProtocol(urlProtocol, didFailWithError: URLError.from(error, url: response.url))
                return
            }
            // CacheChain stores; `.notAllowed` keeps FoundationNetworking from holding a second copy of the data.
            client.urlProtocol(urlProtocol, didReceive: response, cacheStoragePolicy: .notAllowed)
            if !data.isEmpty { client.urlProtocol(urlProtocol, didLoad: data) }
            client.urlProtocolDidFinishLoading(urlProtocol)
        case .failed(let error):
            client.urlProtocol(urlProtocol, didFailWithError: error)
        }
    }

}
