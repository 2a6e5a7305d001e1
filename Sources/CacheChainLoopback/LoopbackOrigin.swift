import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// A programmable HTTP (or HTTPS) origin on `127.0.0.1`, for tests, the demo and benchmarks.
///
/// ```swift
/// let origin = try await LoopbackOrigin.start()
/// origin.route("/a", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "hello", etag: "\"v1\""))
/// // … GET origin.url("/a") …
/// print(origin.requestCount(for: "/a"))
/// try await origin.shutdown()
/// ```
/// Built on SwiftNIO (HTTP/1.1 with keep-alive) and NIOSSL. It binds an ephemeral port, answers
/// conditional `GET`/`HEAD` requests with `304` when the route's validators match, adds `Date` and
/// `Content-Length` to every answer, logs and counts every request and connection.
public final class LoopbackOrigin: Sendable {
    /// A route that computes its answer from the request.
    public typealias Handler = @Sendable (LoopbackRequest) -> LoopbackRoute

    enum RouteEntry: Sendable {
        case fixed(LoopbackRoute)
        case dynamic(Handler)
    }

    struct State {
        var routes: [String: RouteEntry] = [:]
        var requests: [LoopbackRequest] = []
        var connections = 0
        var isShutDown = false
    }

    /// Whether the origin serves HTTPS.
    public let isTLS: Bool
    /// The port it listens on.
    public let port: Int
    let state = Mutex(State())
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel

    private init(isTLS: Bool, port: Int, group: MultiThreadedEventLoopGroup, channel: any Channel) {
        self.isTLS = isTLS
        self.port = port
        self.group = group
        self.channel = channel
    }

    /// Starts an origin on `127.0.0.1` and an ephemeral port.
    /// - Parameter tls: `true` for HTTPS with ``LoopbackCertificate``.
    /// - Returns: The running origin; call ``shutdown()`` when done.
    /// - Throws: ``LoopbackError`` when it cannot bind or set up TLS.
    public static func start(tls: Bool = false) async throws -> LoopbackOrigin {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let sslContext = try tls ? makeSSLContext() : nil
            let box = OriginBox()
            let bootstrap = ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 512)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        guard let origin = box.origin.withLock({ $0 }) else { return }
                        origin.state.withLock { $0.connections += 1 }
                        if let sslContext {
                            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                        }
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(LoopbackHandler(origin: origin))
                    }
                }
            let channel = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
            guard let port = channel.localAddress?.port else {
                throw LoopbackError("the loopback origin bound no port")
            }
            let origin = LoopbackOrigin(isTLS: tls, port: port, group: group, channel: channel)
            box.origin.withLock { $0 = origin }
            return origin
        } catch let error as LoopbackError {
            try? await group.shutdownGracefully()
            throw error
        } catch {
            try? await group.shutdownGracefully()
            throw LoopbackError("could not start the loopback origin on 127.0.0.1: \(error)")
        }
    }

    /// The origin's base URL, e.g. `http://127.0.0.1:54321`.
    public var baseURL: String { "\(isTLS ? "https" : "http")://127.0.0.1:\(port)" }

    /// An absolute URL on this origin.
    /// - Parameter path: A path starting with `/`, optionally with a query.
    /// - Returns: E.g. `http://127.0.0.1:54321/a`.
    public func url(_ path: String) -> String { baseURL + path }

    /// Sets (or replaces) the answer for a path. A path with a query matches exactly; otherwise the path
    /// without the query is tried.
    /// - Parameters:
    ///   - path: The path, e.g. `/a` or `/a?x=1`.
    ///   - route: The answer.
    public func route(_ path: String, _ route: LoopbackRoute) {
        state.withLock { $0.routes[path] = .fixed(route) }
    }

    /// Sets a dynamic answer for a path, computed from each request.
    /// - Parameters:
    ///   - path: The path.
    ///   - handler: Computes the answer.
    public func route(_ path: String, handler: @escaping Handler) {
        state.withLock { $0.routes[path] = .dynamic(handler) }
    }

    /// Every request received so far, in order.
    public var receivedRequests: [LoopbackRequest] { state.withLock { $0.requests } }

    /// How many requests were received for a path (exactly, or without the query).
    /// - Parameter path: The path.
    /// - Returns: The count.
    public func requestCount(for path: String) -> Int {
        state.withLock { state in
            state.requests.count { $0.path == path || (!path.contains("?") && $0.pathWithoutQuery == path) }
        }
    }

    /// The number of TCP connections accepted so far (keep-alive keeps it low).
    public var connectionCount: Int { state.withLock { $0.connections } }

    /// Forgets the request log and connection count.
    public func resetCounts() {
        state.withLock {
            $0.requests.removeAll()
            $0.connections = 0
        }
    }

    /// Stops listening, closes every connection and the event loop. Safe to call twice.
    /// - Throws: ``LoopbackError`` when the event loop cannot be shut down.
    public func shutdown() async throws {
        let first = state.withLock { state in
            defer { state.isShutDown = true }
            return !state.isShutDown
        }
        guard first else { return }
        try? await channel.close()
        do {
            try await group.shutdownGracefully()
        } catch {
            throw LoopbackError("could not shut the loopback origin down: \(error)")
        }
    }

    func answer(for request: LoopbackRequest) -> LoopbackRoute {
        let entry = state.withLock { state -> RouteEntry? in
            state.requests.append(request)
            return state.routes[request.path] ?? state.routes[String(request.pathWithoutQuery)]
        }
        switch entry {
        case .fixed(let route): return route
        case .dynamic(let handler): return handler(request)
        case nil: return LoopbackRoute(status: 404, headers: [("Content-Type", "text/plain")], body: "no route for \(request.path)")
        }
    }

    private static func makeSSLContext() throws -> NIOSSLContext {
        let certificate = try NIOSSLCertificate(bytes: Array(LoopbackCertificate.certificatePEM.utf8), format: .pem)
        let key = try NIOSSLPrivateKey(bytes: Array(LoopbackCertificate.privateKeyPEM.utf8), format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(certificate)], privateKey: .privateKey(key))
        configuration.applicationProtocols = ["http/1.1"]
        return try NIOSSLContext(configuration: configuration)
    }
}

/// Lets the child channel initializer reach the origin created after `bind` returns.
private final class OriginBox: Sendable {
    let origin = Mutex<LoopbackOrigin?>(nil)
}
