#if Loopback
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOSSL
import NIOTLS

extension LoopbackOrigin {
    /// Sets up one accepted connection's pipeline (on its event loop).
    ///
    /// ```
    /// plain:        socket ─ HTTP/1.1 codec ─ LoopbackHandler
    /// TLS, h1 only: socket ─ TLS ─ HTTP/1.1 codec ─ LoopbackHandler
    /// TLS + h2:     socket ─ TLS ─ ALPN ─┬─ "http/1.1" or none: HTTP/1.1 codec ─ LoopbackHandler
    ///                                    └─ "h2": HTTP/2 handler ─ multiplexer ─ per stream:
    ///                                             HTTP2FramePayloadToHTTP1ServerCodec ─ LoopbackHandler
    /// ```
    /// Every branch ends in the same ``LoopbackHandler`` and ``LoopbackRouter``, so routes, conditional
    /// answers and the request log do not depend on the protocol.
    static func configureConnection(
        _ channel: any Channel,
        router: LoopbackRouter,
        sslContext: NIOSSLContext?,
        offersHTTP2: Bool
    ) -> EventLoopFuture<Void> {
        channel.eventLoop.makeCompletedFuture {
            router.connectionAccepted()
            if let sslContext {
                try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
            }
            guard offersHTTP2, sslContext != nil else {
                try configureHTTP1(channel, router: router)
                return
            }
            let alpn = ApplicationProtocolNegotiationHandler { result, channel in
                channel.eventLoop.makeCompletedFuture {
                    switch result {
                    case .negotiated("h2"):
                        try configureHTTP2(channel, router: router)
                    case .negotiated("http/1.1"), .fallback:
                        try configureHTTP1(channel, router: router)
                    case .negotiated(let other):
                        throw LoopbackError("the client negotiated an unexpected protocol: \(other)")
                    }
                }
            }
            try channel.pipeline.syncOperations.addHandler(alpn)
        }
    }

    private static func configureHTTP1(_ channel: any Channel, router: LoopbackRouter) throws {
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
        try channel.pipeline.syncOperations.addHandler(LoopbackHandler(router: router))
    }

    private static func configureHTTP2(_ channel: any Channel, router: LoopbackRouter) throws {
        var connection = NIOHTTP2Handler.ConnectionConfiguration()
        // Room for the tests' bursts (libcurl itself opens at most 100 streams per connection by default).
        connection.initialSettings = nioDefaultSettings.map { setting in
            setting.parameter == .maxConcurrentStreams ? HTTP2Setting(parameter: .maxConcurrentStreams, value: 1000) : setting
        }
        _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
            mode: .server,
            connectionConfiguration: connection,
            streamConfiguration: NIOHTTP2Handler.StreamConfiguration()
        ) { stream in
            stream.eventLoop.makeCompletedFuture {
                try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                try stream.pipeline.syncOperations.addHandler(LoopbackHandler(router: router))
            }
        }
    }
}
#endif
