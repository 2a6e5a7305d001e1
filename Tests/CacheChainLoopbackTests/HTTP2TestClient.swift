import CacheChainLoopback
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL

/// A minimal HTTP/2 client: one TLS connection that offers only `h2` through ALPN, each request on its own
/// stream, so a test can send requests concurrently over one connection and reset a stream mid-answer.
struct HTTP2TestClient: Sendable {
    /// An open stream and the request to send on it.
    struct Stream: Sendable {
        let channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
        let head: HTTPRequestHead

        /// Sends the request (head and end, as one write) and reads the whole answer.
        func response() async throws -> TestResponse {
            try await channel.executeThenClose { inbound, outbound in
                try await outbound.write(contentsOf: [HTTPClientRequestPart.head(head), .end(nil)])
                var response: TestResponse?
                for try await part in inbound {
                    switch part {
                    case .head(let head):
                        response = TestResponse(status: Int(head.status.code), headers: head.headers, body: [])
                    case .body(let buffer):
                        response?.body.append(contentsOf: buffer.readableBytesView)
                    case .end:
                        if let response { return response }
                    }
                }
                throw TestClientError(description: "the stream closed before a whole answer arrived")
            }
        }

        /// Abandons the stream: closing an unfinished stream channel sends `RST_STREAM (CANCEL)` (and the
        /// close itself reports that `StreamClosed` error, which is the expected outcome here).
        func reset() async {
            try? await channel.channel.close()
        }
    }

    private let port: Int
    private let multiplexer: NIOHTTP2Handler.AsyncStreamMultiplexer<any Channel>

    /// Opens one connection to an HTTPS origin, runs `body` with a client on it, then closes it.
    static func withConnection<T: Sendable>(port: Int, _ body: (HTTP2TestClient) async throws -> T) async throws -> T {
        var configuration = TLSConfiguration.makeClientConfiguration()
        let certificate = try NIOSSLCertificate(bytes: Array(LoopbackCertificate.certificatePEM.utf8), format: .pem)
        configuration.trustRoots = .certificates([certificate])
        configuration.applicationProtocols = ["h2"]
        let sslContext = try NIOSSLContext(configuration: configuration)
        let (channel, multiplexer) = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let tls = try NIOSSLClientHandler(context: sslContext, serverHostname: "localhost")
                    try channel.pipeline.syncOperations.addHandler(tls)
                    // The server never opens streams (no push): the inbound initializer only has to exist.
                    let multiplexer = try channel.pipeline.syncOperations.configureAsyncHTTP2Pipeline(mode: .client) { stream in
                        stream.eventLoop.makeSucceededFuture(stream)
                    }
                    return (channel, multiplexer)
                }
            }
        let client = HTTP2TestClient(port: port, multiplexer: multiplexer)
        do {
            let result = try await body(client)
            try? await channel.close()
            return result
        } catch {
            try? await channel.close()
            throw error
        }
    }

    /// Opens a stream for a request; ``Stream/response()`` sends it.
    func open(_ path: String, method: HTTPMethod = .GET, headers: [(String, String)] = []) async throws -> Stream {
        let channel = try await multiplexer.openStream { stream in
            stream.eventLoop.makeCompletedFuture {
                try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ClientCodec(httpProtocol: .https))
                return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: stream)
            }
        }
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
        head.headers.add(name: "Host", value: "127.0.0.1:\(port)")  // sent as :authority
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        return Stream(channel: channel, head: head)
    }

    /// Sends a request on a new stream and reads its answer.
    func send(_ path: String, method: HTTPMethod = .GET, headers: [(String, String)] = []) async throws -> TestResponse {
        try await open(path, method: method, headers: headers).response()
    }
}
