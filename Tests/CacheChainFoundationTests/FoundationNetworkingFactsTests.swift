import CacheChainCore
import CacheChainTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// What FoundationNetworking does with a custom `URLProtocol`, checked on this toolchain: the facts
/// `CacheChainURLProtocol` is built on. If a Foundation release changes one, its test fails here first.
///
/// The probe protocol answers `probe:` URLs with a canned response and records what it could see.
@Suite("FoundationNetworking facts", .serialized)
struct FoundationNetworkingFactsTests {
    @Test("a custom protocol's response and data reach the completion handler, the async API and the delegate")
    func customProtocolAnswers() async throws {
        let recorder = FactDelegate()
        let session = URLSession(configuration: ProbeProtocol.configuration(), delegate: recorder, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let (data, response) = try await session.data(for: URLRequest(url: try #require(URL(string: "probe://host/a"))))
        #expect(String(decoding: data, as: UTF8.self) == "probe body")
        #expect((response as? HTTPURLResponse)?.statusCode == 200)

        let task = session.dataTask(with: try #require(URL(string: "probe://host/b")))
        task.resume()
        try await waitUntil("the delegate saw the task complete") { recorder.state.withLock { $0.completed } }
        let seen = recorder.state.withLock { $0 }
        #expect(seen.responses == 1)
        #expect(String(decoding: seen.data, as: UTF8.self) == "probe body")
    }

    @Test("FoundationNetworking never calls willCacheResponse nor stores into urlCache for a custom protocol")
    func noCachingForCustomProtocols() async throws {
        let recorder = FactDelegate()
        let configuration = ProbeProtocol.configuration()
        let cache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: "/dev/null")
        configuration.urlCache = cache
        let session = URLSession(configuration: configuration, delegate: recorder, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let url = try #require(URL(string: "probe://host/cacheable"))
        let task = session.dataTask(with: url)
        task.resume()
        try await waitUntil("the task completed") { recorder.state.withLock { $0.completed } }
        #expect(recorder.state.withLock { $0.willCacheCalls } == 0)
        #expect(cache.cachedResponse(for: URLRequest(url: url)) == nil)
    }

    @Test("inside startLoading, task.delegate is the session's delegate, even under data(for:delegate:)")
    func taskDelegateIsTheSessionDelegate() async throws {
        let sessionDelegate = FactDelegate()
        let session = URLSession(configuration: ProbeProtocol.configuration(), delegate: sessionDelegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let perCall = FactDelegate()
        let url = try #require(URL(string: "probe://host/delegate"))
        _ = try await session.data(for: URLRequest(url: url), delegate: perCall)
        let seen = try #require(ProbeProtocol.lastSeen.withLock { $0[url.path] })
        #expect(seen.delegate === sessionDelegate)
    }

    @Test("the task's session is reachable by reflection on its stored `session` property")
    func sessionByReflection() async throws {
        let session = URLSession(configuration: ProbeProtocol.configuration())
        defer { session.invalidateAndCancel() }
        let url = try #require(URL(string: "probe://host/session"))
        _ = try await session.data(for: URLRequest(url: url))
        let seen = try #require(ProbeProtocol.lastSeen.withLock { $0[url.path] })
        #expect(seen.session === session)
        #expect(seen.hasWorkQueue)
    }

    @Test("the session's urlCache is asked for the data task's cached response before the protocol is made")
    func urlCacheIsAskedFirst() async throws {
        let configuration = ProbeProtocol.configuration()
        let cache = AskedCache()
        configuration.urlCache = cache
        let session = URLSession(configuration: configuration)
        defer { session.invalidateAndCancel() }
        let url = try #require(URL(string: "probe://host/asked"))
        _ = try await session.data(for: URLRequest(url: url))
        #expect(cache.askedURLs.withLock { $0 } == [url])
        let seen = try #require(ProbeProtocol.lastSeen.withLock { $0[url.path] })
        #expect(seen.cachedResponseMarker == "asked")
    }

    @Test("httpAdditionalHeaders are not merged into the request a custom protocol sees")
    func additionalHeadersStayInTheConfiguration() async throws {
        let configuration = ProbeProtocol.configuration()
        configuration.httpAdditionalHeaders = ["X-Extra": "1"]
        let session = URLSession(configuration: configuration)
        defer { session.invalidateAndCancel() }
        let url = try #require(URL(string: "probe://host/headers"))
        _ = try await session.data(for: URLRequest(url: url))
        let seen = try #require(ProbeProtocol.lastSeen.withLock { $0[url.path] })
        #expect(seen.extraHeader == nil)
    }

    @Test("with several didLoad calls, the completion handler gets only the last piece")
    func completionKeepsTheLastPiece() async throws {
        let session = URLSession(configuration: ProbeProtocol.configuration())
        defer { session.invalidateAndCancel() }
        let (data, _) = try await session.data(for: URLRequest(url: try #require(URL(string: "probe://host/pieces"))))
        #expect(String(decoding: data, as: UTF8.self) == "second")
    }

    @Test("cancel() calls stopLoading and reports URLError.cancelled itself")
    func cancelCallsStopLoading() async throws {
        let session = URLSession(configuration: ProbeProtocol.configuration())
        defer { session.invalidateAndCancel() }
        let url = try #require(URL(string: "probe://host/hang"))
        let failure = LockedValue<(any Error)??>(nil)
        let task = session.dataTask(with: url) { _, _, error in failure.withLock { $0 = .some(error) } }
        task.resume()
        try await waitUntil("the probe started loading") { ProbeProtocol.lastSeen.withLock { $0[url.path] != nil } }
        task.cancel()
        try await waitUntil("the completion handler ran") { failure.withLock { $0 != nil } }
        #expect(ProbeProtocol.stopped.withLock { $0.contains(url.path) })
        let error = try #require(failure.withLock { $0 ?? nil })
        #expect((error as? URLError)?.code == .cancelled)
    }

    @Test("download tasks are routed to a custom protocol by canInit(with: URLRequest)")
    func downloadTasksReachCustomProtocols() async throws {
        let session = URLSession(configuration: ProbeProtocol.configuration())
        defer { session.invalidateAndCancel() }
        let url = try #require(URL(string: "probe://host/download"))
        let done = LockedValue(false)
        let task = session.downloadTask(with: url) { _, _, _ in done.withLock { $0 = true } }
        task.resume()
        try await waitUntil("the download completed") { done.withLock { $0 } }
        #expect(ProbeProtocol.lastSeen.withLock { $0[url.path] } != nil)
    }
}

/// What the probe saw inside `startLoading`.
struct ProbeSighting: @unchecked Sendable {  // invariant: written once in startLoading, then only read
    var delegate: AnyObject?
    var session: AnyObject?
    var hasWorkQueue: Bool
    var cachedResponseMarker: String?
    var extraHeader: String?
}

/// Answers `probe:` URLs; `/hang` never answers, `/pieces` loads its body in two pieces.
final class ProbeProtocol: URLProtocol {
    static let lastSeen = LockedValue<[String: ProbeSighting]>([:])
    static let stopped = LockedValue<Set<String>>([])

    static func configuration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.protocolClasses = [ProbeProtocol.self]
        configuration.urlCache = nil
        return configuration
    }

    override class func canInit(with request: URLRequest) -> Bool { request.url?.scheme == "probe" }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        let path = request.url?.path ?? ""
        var sessionObject: AnyObject?
        var hasWorkQueue = false
        var mirror: Mirror? = task.map { Mirror(reflecting: $0) }
        while let current = mirror {
            for child in current.children {
                if child.label == "session", let session = child.value as? URLSession { sessionObject = session }
                if child.label == "workQueue", child.value is DispatchQueue { hasWorkQueue = true }
            }
            mirror = current.superclassMirror
        }
        let sighting = ProbeSighting(
            delegate: task?.delegate,
            session: sessionObject,
            hasWorkQueue: hasWorkQueue,
            cachedResponseMarker: cachedResponse?.userInfo?["marker"] as? String,
            extraHeader: request.value(forHTTPHeaderField: "X-Extra")
        )
        Self.lastSeen.withLock { $0[path] = sighting }
        guard path != "/hang", let url = request.url, let client else { return }
        let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Cache-Control": "max-age=60"])
        guard let response else { return }
        client.urlProtocol(self, didReceive: response, cacheStoragePolicy: .allowed)
        if path == "/pieces" {
            client.urlProtocol(self, didLoad: Data("first".utf8))
            client.urlProtocol(self, didLoad: Data("second".utf8))
        } else {
            client.urlProtocol(self, didLoad: Data("probe body".utf8))
        }
        client.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {
        let path = request.url?.path ?? ""
        Self.stopped.withLock { _ = $0.insert(path) }
    }
}

/// Records the delegate calls FoundationNetworking makes.
final class FactDelegate: NSObject, URLSessionDataDelegate, Sendable {
    struct State {
        var responses = 0
        var data = Data()
        var willCacheCalls = 0
        var completed = false
    }

    let state = LockedValue(State())

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        state.withLock { $0.responses += 1 }
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
        state.withLock { $0.willCacheCalls += 1 }
        completionHandler(proposedResponse)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        state.withLock { $0.completed = true }
    }
}

/// A URLCache that records which tasks it was asked about and answers with a marked response.
final class AskedCache: URLCache, @unchecked Sendable {  // invariant: its only state is the LockedValue
    let askedURLs = LockedValue<[URL]>([])

    init() {
        super.init(memoryCapacity: 0, diskCapacity: 0, diskPath: "/dev/null")
    }

    override func getCachedResponse(
        for dataTask: URLSessionDataTask,
        completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void
    ) {
        guard let url = dataTask.currentRequest?.url else { return completionHandler(nil) }
        askedURLs.withLock { $0.append(url) }
        let response = URLResponse(url: url, mimeType: nil, expectedContentLength: 0, textEncodingName: nil)
        completionHandler(CachedURLResponse(response: response, data: Data(), userInfo: ["marker": "asked"], storagePolicy: .notAllowed))
    }
}
