import CacheChain
import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// A `URLProtocol` that answers a session's `http` and `https` data tasks through a CacheChain pipeline: what
/// makes `URLSession` code cache on Linux, where FoundationNetworking stores nothing.
///
/// Turn it on for a session with `URLSessionConfiguration.usingCacheChain(_:)`:
///
/// ```swift
/// import CacheChain
/// import CacheChainCurl
/// import CacheChainFoundation
/// import Foundation
/// import FoundationNetworking
///
/// let client = HTTPCacheClient(transport: CurlTransport())
/// let session = URLSession(configuration: .default.usingCacheChain(client))
/// let url = URL(string: "https://example.com/")!
/// let (data, response) = try await session.data(for: URLRequest(url: url))   // MISS: from the origin
/// let (again, _) = try await session.data(for: URLRequest(url: url))          // HIT: from the cache
/// print((response as? HTTPURLResponse)?.statusCode ?? 0, data == again)
/// ```
///
/// **Which client answers.** FoundationNetworking creates the protocol itself and shows it only its request,
/// its task and what the session's `urlCache` answered; the task keeps its session in a property it does not
/// publish, which the protocol reads by reflection. The session's `urlCache` names the client: a
/// ``CacheChainURLCache`` answers with its ``CacheChainURLCache/client`` (`URLSessionConfiguration.usingCacheChain(_:)`
/// sets one), so several sessions with different clients work side by side and a session's cache and its
/// requests always agree. Any other `urlCache` means `HTTPCacheClient.shared`; no `urlCache` means the
/// network through `HTTPCacheClient.shared`'s transport with nothing looked up or stored.
///
/// **What a task gets.** The request's `cachePolicy` (or the configuration's `requestCachePolicy` when the
/// request keeps the default), all six policies as `HTTPCacheClient` implements them; its `timeoutInterval`
/// (or the configuration's `timeoutIntervalForRequest`) as the whole request's limit; its `httpBody`,
/// `httpBodyStream` or upload body; the configuration's `httpAdditionalHeaders` and cookies. Redirects are
/// followed here, each hop through the whole pipeline (looked up and stored on its own), after the task
/// delegate's `urlSession(_:task:willPerformHTTPRedirection:newRequest:completionHandler:)` agrees. Before
/// storing a response the pipeline asks the delegate's
/// `urlSession(_:dataTask:willCacheResponse:completionHandler:)`, which may keep it, keep it in memory only,
/// change its `userInfo`, or veto it. Failures are `URLError`s: `.timedOut`, `.cancelled`,
/// `.cannotConnectToHost`, `.resourceUnavailable` for a `returnCacheDataDontLoad` miss… Cancelling the task
/// cancels the pipeline at once; nothing half-received is stored.
///
/// Download tasks are passed to FoundationNetworking's own HTTP loader (uncached): it keeps their downloaded
/// file in a place only it can write.
public final class CacheChainURLProtocol: URLProtocol {
    /// The running pipeline call; only touched on the task's work queue (startLoading and stopLoading).
    private var loading: Task<Void, Never>?
    private var channel: ClientChannel?
    /// FoundationNetworking's loader, for tasks handed to it.
    private var forwarded: URLProtocol?

    /// Whether the protocol answers a request: absolute `http` and `https` URLs.
    /// - Parameter request: The request.
    /// - Returns: `true` for `http` and `https`.
    public override class func canInit(with request: URLRequest) -> Bool {
        guard let scheme = request.url?.scheme?.lowercased() else { return false }
        return scheme == "http" || scheme == "https"
    }

    /// The request itself: CacheChain computes its own cache key.
    /// - Parameter request: The request.
    /// - Returns: `request`.
    public override class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    /// Whether two requests share a cache entry: same method and URL.
    /// - Parameters:
    ///   - a: A request.
    ///   - b: Another request.
    /// - Returns: `true` when they have the same method and URL.
    public override class func requestIsCacheEquivalent(_ a: URLRequest, to b: URLRequest) -> Bool {
        (a.httpMethod ?? "GET") == (b.httpMethod ?? "GET") && a.url == b.url
    }

    /// Starts loading: sends the task's request through the client's pipeline in a Swift task that runs on the
    /// task's work queue, and hands the outcome to the protocol's client there.
    public override func startLoading() {
        let surroundings = task.map { TaskSurroundings(of: $0) }
        if let task, !(task is URLSessionDataTask) {
            return forwardToFoundation(task)
        }
        let executor = WorkQueueExecutor(surroundings?.workQueue ?? DispatchQueue(label: "cachechain.foundation.protocol"))
        let channel = ClientChannel(self, queue: executor.queue)
        self.channel = channel
        let session = surroundings?.session
        let binding = SessionBinding(session: session)
        let load: TaskLoad
        do {
            let body = try SessionRequest.read(request, of: surroundings?.knownBody)
            load = TaskLoad(
                client: binding.client,
                isCaching: binding.isCaching,
                request: try SessionRequest(request, body: body, configuration: session?.configuration),
                configuration: session?.configuration,
                delegateCalls: task.flatMap { SessionDelegateCalls(task: $0, session: session) }
            )
        } catch {
            return channel.deliver(.failed(URLError.from(error, url: request.url)))
        }
        // The loading runs on the task's work queue (see WorkQueueExecutor): it starts right after this method
        // returns, on this thread, and hands its outcome to the client there, without another hop.
        loading = Task(executorPreference: executor) { channel.deliverOnQueue(await load.run()) }
    }

    /// Stops loading (the task was cancelled or suspended): cancels the pipeline call, whose transfer libcurl
    /// aborts at once, and delivers nothing more. A resumed task starts again with ``startLoading()``.
    public override func stopLoading() {
        if let forwarded { return forwarded.stopLoading() }
        channel?.close()
        channel = nil
        loading?.cancel()
        loading = nil
    }

    /// Whether this protocol answers a request in a session: the first of the session's protocol classes that
    /// can handle the request is this one.
    static func answers(_ request: URLRequest, of session: URLSession?) -> Bool {
        let classes = session?.configuration.protocolClasses ?? []
        let first = classes.lazy.compactMap { $0 as? URLProtocol.Type }.first { $0.canInit(with: request) }
        return first.map(ObjectIdentifier.init) == ObjectIdentifier(CacheChainURLProtocol.self)
    }

    /// Hands a task this protocol does not answer (a download task) to FoundationNetworking's own loader.
    private func forwardToFoundation(_ task: URLSessionTask) {
        let classes = URLSessionConfiguration.default.protocolClasses ?? []
        let native = classes.lazy.compactMap { $0 as? URLProtocol.Type }.first {
            ObjectIdentifier($0) != ObjectIdentifier(CacheChainURLProtocol.self) && $0.canInit(with: self.request)
        }
        guard let native else {
            client?.urlProtocol(self, didFailWithError: URLError(.unsupportedURL, userInfo: URLError.details(
                "FoundationNetworking has no loader for this task; use a data task", url: request.url)))
            return
        }
        let inner = native.init(task: task, cachedResponse: cachedResponse, client: nil)
        forwarded = inner
        inner.startLoading()
    }
}
