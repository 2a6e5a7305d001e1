import CacheChain
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import HTTPTypesFoundation

/// What a task's loading ends with.
enum TaskOutcome: Sendable {
    /// The final response and its body (read on the task's work queue, never on Swift's cooperative pool).
    case loaded(HTTPURLResponse, PipelineBody)
    /// The error to report.
    case failed(URLError)
}

/// One loading of a task by ``CacheChainURLProtocol``: the request through the client's pipeline, each redirect
/// the delegate lets through sent again through the whole pipeline (so each hop is looked up and stored as the
/// pipeline decides), cookies kept as the session's configuration says.
struct TaskLoad: Sendable {
    /// The client that answers the task's session.
    let client: HTTPCacheClient
    /// `false` when the session has no `urlCache`: the network is used and nothing is stored.
    let isCaching: Bool
    /// The first request.
    let request: SessionRequest
    /// The session's configuration, when the session could be reached.
    let configuration: URLSessionConfiguration?
    /// The delegate's caching and redirect decisions, when the task has a delegate.
    let delegateCalls: SessionDelegateCalls?

    /// Runs the task to its outcome; never throws (failures become a `URLError`).
    /// - Returns: The outcome to hand to the protocol's client.
    func run() async -> TaskOutcome {
        var current = request
        var redirects = 0
        do {
            while true {
                let response = try await send(current)
                let url = current.urlRequest.url ?? URL(fileURLWithPath: "/")
                guard let head = HTTPURLResponse(httpResponse: response.head, url: url) else {
                    throw URLError(.badServerResponse, userInfo: URLError.details("the response cannot be expressed as an HTTPURLResponse", url: url))
                }
                if response.cacheStatus == .miss || response.cacheStatus == .bypass { keepCookies(from: head) }
                guard var next = RedirectRules.request(following: head, from: current.urlRequest) else {
                    return .loaded(head, response.body)
                }
                guard redirects < RedirectRules.limit else {
                    throw URLError(.httpTooManyRedirects, userInfo: URLError.details("more than \(RedirectRules.limit) redirects", url: url))
                }
                addCookies(to: &next)
                if let delegateCalls {
                    guard let decided = await delegateCalls.willPerformRedirection(head, newRequest: next) else {
                        return .loaded(head, response.body)
                    }
                    next = decided
                }
                try Task.checkCancellation()
                current = try SessionRequest(next, body: body(of: next, after: current), configuration: configuration)
                redirects += 1
            }
        } catch {
            return .failed(URLError.from(error, url: current.urlRequest.url))
        }
    }

    private func send(_ request: SessionRequest) async throws -> PipelineResponse {
        var values = ContextValues()
        // The protocol follows redirects itself (so the delegate decides): a RedirectInterceptor in the
        // client's chain hands the 3xx back instead of following it.
        values[RedirectInterceptor.ModeKey.self] = .manual
        values[StorageDecisionInterceptor.WillCacheResponseKey.self] = delegateCalls?.storageHook
        var pipelineRequest = request.pipelineRequest
        if !isCaching { pipelineRequest.storageLimit = .refused }
        return try await client.send(
            pipelineRequest,
            cachePolicy: isCaching ? request.cachePolicy : .reloadIgnoringLocalCacheData,
            timeout: request.timeout,
            values: values
        )
    }

    /// The body of the next hop: the one the request (or the delegate) gives, else the previous hop's when the
    /// redirect keeps the method (307, 308).
    private func body(of next: URLRequest, after current: SessionRequest) -> Data? {
        if let body = next.httpBody { return body }
        guard next.httpMethod == current.urlRequest.httpMethod, let body = current.pipelineRequest.body else { return nil }
        return body.inMemoryBytes.map { Data($0) }
    }

    /// Stores the response's cookies in the session's cookie storage, as FoundationNetworking's loader does for
    /// responses from the network.
    private func keepCookies(from response: HTTPURLResponse) {
        guard let configuration, configuration.httpShouldSetCookies, let storage = configuration.httpCookieStorage,
            configuration.httpCookieAcceptPolicy != .never, let url = response.url,
            let fields = response.allHeaderFields as? [String: String]
        else { return }
        let cookies = HTTPCookie.cookies(withResponseHeaderFields: fields, for: url)
        if !cookies.isEmpty { storage.setCookies(cookies, for: url, mainDocumentURL: nil) }
    }

    /// Adds the session's cookies for a redirect's URL, as FoundationNetworking does for each request.
    private func addCookies(to request: inout URLRequest) {
        guard let configuration, configuration.httpShouldSetCookies, let storage = configuration.httpCookieStorage,
            let url = request.url, let cookies = storage.cookies(for: url), !cookies.isEmpty
        else { return }
        for (name, value) in HTTPCookie.requestHeaderFields(with: cookies) { request.setValue(value, forHTTPHeaderField: name) }
    }
}
