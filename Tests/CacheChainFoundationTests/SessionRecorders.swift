import CacheChainCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session delegate that records what FoundationNetworking told it, and can answer the caching and redirect
/// questions with closures.
final class DataRecorder: NSObject, URLSessionDataDelegate, Sendable {
    struct State {
        var statuses: [Int] = []
        var data = Data()
        var errors: [any Error] = []
        var completions = 0
        /// The sessions the caching and redirect questions came with.
        var askingSessions: [URLSession] = []
        var redirects: [(status: Int, to: URL?)] = []
    }

    let state = LockedValue(State())
    private let decideCaching: (@Sendable (CachedURLResponse) -> CachedURLResponse?)?
    private let decideRedirect: (@Sendable (HTTPURLResponse, URLRequest) -> URLRequest?)?

    /// Creates a recorder.
    /// - Parameters:
    ///   - caching: Answers `willCacheResponse`; the default implementation (keep) when `nil`.
    ///   - redirect: Answers `willPerformHTTPRedirection`; follow when `nil`.
    init(
        caching: (@Sendable (CachedURLResponse) -> CachedURLResponse?)? = nil,
        redirect: (@Sendable (HTTPURLResponse, URLRequest) -> URLRequest?)? = nil
    ) {
        decideCaching = caching
        decideRedirect = redirect
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        state.withLock { $0.statuses.append((response as? HTTPURLResponse)?.statusCode ?? -1) }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state.withLock { $0.data.append(data) }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        willCacheResponse proposedResponse: CachedURLResponse,
        completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void
    ) {
        state.withLock { $0.askingSessions.append(session) }
        completionHandler(decideCaching.map { $0(proposedResponse) } ?? proposedResponse)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        state.withLock {
            $0.askingSessions.append(session)
            $0.redirects.append((response.statusCode, request.url))
        }
        completionHandler(decideRedirect.map { $0(response, request) } ?? request)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        state.withLock {
            if let error { $0.errors.append(error) }
            $0.completions += 1
        }
    }
}
