#if Loopback
import CacheChainCore
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// A programmable HTTP (or HTTPS) origin on `127.0.0.1`, for tests, the demo and benchmarks.
///
/// ```swift
/// let origin = try await LoopbackOrigin.start()
/// origin.route("/a", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "hello", etag: "\"v1\""))
/// // … GET origin.url("/a") …
/// print(origin.requestCount(for: "/a"))
/// try await origin.shutdown()
/// ```
/// Built on SwiftNIO (HTTP/1.1 with keep-alive), NIOSSL and NIOHTTP2: over TLS it also speaks HTTP/2 with
/// clients that negotiate `h2` (unless started with `offersHTTP2: false`), and logs each request's
/// ``LoopbackRequest/version``. It binds an ephemeral port, answers
/// conditional `GET`/`HEAD` requests with `304` when the route's validators match, adds `Date` and
/// `Content-Length` to every answer (except `204` and `304`), logs and counts every request and connection.
public final class LoopbackOrigin: Sendable {
    /// A route that computes its answer from the request.
    public typealias Handler = @Sendable (LoopbackRequest) -> LoopbackRoute

    /// Whether the origin serves HTTPS.
    public let isTLS: Bool
    /// Whether the origin offers HTTP/2 (over TLS, through ALPN) besides HTTP/1.1.
    public let offersHTTP2: Bool
    /// The port it listens on.
    public let port: Int
    private let router: LoopbackRouter
    private let isShutDown = LockedValue(false)
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel

    private init(
        isTLS: Bool,
        offersHTTP2: Bool,
        port: Int,
        router: LoopbackRouter,
        group: MultiThreadedEventLoopGroup,
        channel: any Channel
    ) {
        self.isTLS = isTLS
        self.offersHTTP2 = offersHTTP2
        self.port = port
        self.router = router
        self.group = group
        self.channel = channel
    }

    /// Starts an origin on `127.0.0.1` and an ephemeral port.
    /// - Parameters:
    ///   - tls: `true` for HTTPS with ``LoopbackCertificate``.
    ///   - offersHTTP2: With TLS, offer HTTP/2 beside HTTP/1.1 through ALPN (`h2`, `http/1.1`), so a client
    ///     that asks for `h2` gets it and others fall back to HTTP/1.1; `false` keeps the origin HTTP/1.1-only.
    ///     Ignored without TLS: the origin never speaks cleartext HTTP/2 (`h2c`).
    /// - Returns: The running origin; call ``shutdown()`` when done.
    /// - Throws: ``LoopbackError`` when it cannot bind or set up TLS.
    public static func start(tls: Bool = false, offersHTTP2: Bool = true) async throws -> LoopbackOrigin {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let offersHTTP2 = tls && offersHTTP2
        do {
            let sslContext = try tls ? makeSSLContext(offersHTTP2: offersHTTP2) : nil
            let router = LoopbackRouter()
            let bootstrap = ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 512)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    configureConnection(channel, router: router, sslContext: sslContext, offersHTTP2: offersHTTP2)
                }
            let channel = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
            guard let port = channel.localAddress?.port else {
                throw LoopbackError("the loopback origin bound no port")
            }
            return LoopbackOrigin(isTLS: tls, offersHTTP2: offersHTTP2, port: port, router: router, group: group, channel: channel)
        } catch {
            try? await group.shutdownGracefully()
            throw error as? LoopbackError ?? LoopbackError("could not start the loopback origin on 127.0.0.1: \(error)")
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
        router.set(.fixed(route), for: path)
    }

    /// Sets a dynamic answer for a path, computed from each request.
    /// - Parameters:
    ///   - path: The path.
    ///   - handler: Computes the answer.
    public func route(_ path: String, handler: @escaping Handler) {
        router.set(.dynamic(handler), for: path)
    }

    /// Every request received so far, in order.
    public var receivedRequests: [LoopbackRequest] { router.state.withLock { $0.requests } }

    /// How many requests were received for a path (exactly, or without the query).
    /// - Parameter path: The path.
    /// - Returns: The count.
    public func requestCount(for path: String) -> Int {
        router.state.withLock { state in
            state.requests.count { $0.path == path || $0.pathWithoutQuery == path }
        }
    }

    /// The number of TCP connections accepted so far (keep-alive keeps it low; HTTP/2 carries concurrent
    /// requests as streams of one connection).
    public var connectionCount: Int { router.state.withLock { $0.connections } }

    /// Forgets the request log and connection count.
    public func resetCounts() {
        router.state.withLock {
            $0.requests.removeAll()
            $0.connections = 0
        }
    }

    /// Stops listening, closes every connection and the event loop. Safe to call twice.
    /// - Throws: ``LoopbackError`` when the event loop cannot be shut down.
    public func shutdown() async throws {
        let first = isShutDown.withLock { isShutDown in
            defer { isShutDown = true }
            return !isShutDown
        }
        guard first else { return }
        try? await channel.close()
        do {
            try await group.shutdownGracefully()
        } catch {
            throw LoopbackError("could not shut the loopback origin down: \(error)")
        }
    }

    private static func makeSSLContext(offersHTTP2: Bool) throws -> NIOSSLContext {
        let certificate = try NIOSSLCertificate(bytes: Array(LoopbackCertificate.certificatePEM.utf8), format: .pem)
        let key = try NIOSSLPrivateKey(bytes: Array(LoopbackCertificate.privateKeyPEM.utf8), format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(certificate)], privateKey: .privateKey(key))
        // ALPN, in the server's order of preference.
        configuration.applicationProtocols = offersHTTP2 ? ["h2", "http/1.1"] : ["http/1.1"]
        // On shutdown, wait briefly for a client's close_notify: NIOSSL's default of 5 s made every
        // shutdown with an idle keep-alive connection (libcurl keeps them) take 5 s.
        configuration.shutdownTimeout = .milliseconds(100)
        return try NIOSSLContext(configuration: configuration)
    }
}
#endif
