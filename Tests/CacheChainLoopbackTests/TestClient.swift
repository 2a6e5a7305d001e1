import CacheChainLoopback
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One answer as the test client saw it.
struct TestResponse: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
    func header(_ name: String) -> String? { headers.first(name: name) }
}

/// A minimal HTTP/1.1 client over one NIO connection: requests are sent one after another on the same
/// socket, so a test can prove keep-alive reuse.
struct TestClient {
    /// How to secure the connection.
    enum Security {
        case plain
        /// TLS verifying the given host name (or the IP). Trusts only ``LoopbackCertificate`` unless
        /// `trustLoopbackCertificate` is `false`, when it trusts only the system's roots.
        case tls(serverHostname: String?, trustLoopbackCertificate: Bool = true)
    }

    /// Opens one connection, runs `body` with a function that sends a request and reads its answer,
    /// then closes the connection.
    static func withConnection<T: Sendable>(
        port: Int,
        security: Security = .plain,
        _ body: (_ send: (_ method: HTTPMethod, _ path: String, _ headers: [(String, String)]) async throws -> TestResponse) async throws -> T
    ) async throws -> T {
        let sslContext: NIOSSLContext?
        let hostname: String?
        switch security {
        case .plain:
            sslContext = nil
            hostname = nil
        case .tls(let serverHostname, let trustLoopbackCertificate):
            var configuration = TLSConfiguration.makeClientConfiguration()
            if trustLoopbackCertificate {
                let certificate = try NIOSSLCertificate(bytes: Array(LoopbackCertificate.certificatePEM.utf8), format: .pem)
                configuration.trustRoots = .certificates([certificate])
            }
            sslContext = try NIOSSLContext(configuration: configuration)
            hostname = serverHostname
        }
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let sslContext {
                        let handler = try NIOSSLClientHandler(context: sslContext, serverHostname: hostname)
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var responses = inbound.makeAsyncIterator()
            return try await body { method, path, headers in
                var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
                head.headers.add(name: "Host", value: "127.0.0.1:\(port)")
                for (name, value) in headers { head.headers.add(name: name, value: value) }
                // One write: a GET is complete once its head arrives, so a server answering `Connection: close`
                // may close the socket before a separate `.end` write would happen.
                try await outbound.write(contentsOf: [HTTPClientRequestPart.head(head), .end(nil)])
                var response: TestResponse?
                while let part = try await responses.next() {
                    switch part {
                    case .head(let head):
                        response = TestResponse(status: Int(head.status.code), headers: head.headers, body: [])
                    case .body(let buffer):
                        response?.body.append(contentsOf: buffer.readableBytesView)
                    case .end:
                        if let response { return response }
                    }
                }
                throw TestClientError(description: "the connection closed before a whole answer arrived")
            }
        }
    }

    /// Sends one request on a fresh connection.
    static func send(
        _ method: HTTPMethod = .GET,
        port: Int,
        _ path: String,
        headers: [(String, String)] = [],
        security: Security = .plain
    ) async throws -> TestResponse {
        try await withConnection(port: port, security: security) { send in
            try await send(method, path, headers)
        }
    }
}

struct TestClientError: Error, CustomStringConvertible {
    var description: String
}
