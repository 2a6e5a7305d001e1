public import Foundation

extension CurlTransport {
    /// Settings of a ``CurlTransport``.
    public struct Configuration: Sendable {
        /// The HTTP versions the transport may use.
        public enum HTTPVersion: Sendable, Hashable {
            /// HTTP/1.1 only.
            case http1_1
            /// HTTP/2 over TLS when the server offers it (ALPN), HTTP/1.1 otherwise (libcurl's default).
            ///
            /// Concurrent requests to one `https` origin then share one connection as HTTP/2 streams
            /// (libcurl's multiplexing): a request that finds a connection to its origin still being set up
            /// waits for it (`CURLOPT_PIPEWAIT`) instead of opening another one, and opens its own only if
            /// the origin turns out not to speak HTTP/2. This holds across ``loopCount`` threads: such an origin
            /// keeps to the one thread its first request went to (each thread has its own connections), until it
            /// answers over HTTP/1.1. Plain `http` always uses HTTP/1.1.
            case http2OverTLS
        }

        /// How long to wait for a connection (TCP and TLS handshake).
        public var connectTimeout: Duration
        /// How long a whole request may take, unless the request's context gives its own timeout.
        public var requestTimeout: Duration
        /// HTTP version preference; ``NegotiatedHTTPVersion`` tells what was actually used.
        public var httpVersion: HTTPVersion
        /// A PEM file of CA certificates (libcurl's `CURLOPT_CAINFO`, curl's `--cacert`), e.g. a test origin's.
        ///
        /// It replaces libcurl's built-in CA *bundle* only: the CA *directory* (``caDirectory``, or libcurl's
        /// built-in one, `/etc/ssl/certs` on Debian) is still consulted, so with a directory of the system's
        /// hashed certificates the file is trusted in addition to the system store.
        public var caFile: String?
        /// A directory of CA certificates named by their OpenSSL subject hash (libcurl's `CURLOPT_CAPATH`,
        /// curl's `--capath`), consulted in addition to ``caFile``; `nil` keeps libcurl's built-in directory.
        public var caDirectory: String?
        /// A public key pin in libcurl's format, e.g. `sha256//BASE64=`; the connection fails when the
        /// server's key does not match.
        public var pinnedPublicKey: String?
        /// Ask for compressed responses (`gzip`, `deflate`, `br`, `zstd`) and decode them. The decoded
        /// response carries no `Content-Encoding` and a `Content-Length` of the decoded body, so what the
        /// cache stores is consistent. Not applied when the request sets its own `Accept-Encoding`.
        public var automaticDecompression: Bool
        /// The largest response body accepted, in bytes; larger bodies fail with a clear error instead of
        /// filling the disk.
        public var maximumBodySize: Int
        /// Bodies up to this many bytes are kept in memory; a larger body is spooled to a temporary file in
        /// ``spoolDirectory`` as it arrives and returned file-backed (see `PipelineBody.file`), so memory stays
        /// bounded whatever the body's size.
        public var inMemoryBodyLimit: Int
        /// Where large bodies are spooled, as files without a name (`O_TMPFILE`; where the file system has
        /// none, named 0600 and unlinked at once), read through their open descriptor and freed when the body is
        /// released or the process dies: nothing is left behind after a crash. The temporary directory by
        /// default; a missing directory is created 0700, and one that belongs to another user (or that other
        /// users can write to without the sticky bit) is refused, so such a transfer fails with a clear error.
        public var spoolDirectory: String
        /// The most connections kept open per host by each libcurl thread (libcurl's
        /// `CURLMOPT_MAX_HOST_CONNECTIONS`; 0 = no limit).
        public var maximumConnectionsPerHost: Int
        /// How many libcurl threads share the transfers, each with its own multi handle and connection pool
        /// (a transfer goes to the thread with the fewest in flight, so sequential requests reuse one
        /// connection while concurrent HTTP/1.1 ones to a host get a connection per thread; an `https` origin
        /// that speaks HTTP/2 keeps to one thread, so its requests share one connection); one per core by default
        /// (`ProcessInfo.processInfo.activeProcessorCount`), so concurrent misses use every core: on 2 cores,
        /// 2 threads served 8 concurrent small misses 1.46× and 64 concurrent 1.61× as fast as 1, and sequential
        /// misses alike (1.02×; the benchmark's `BENCH_PAIRED=loops`). Set 1 for one connection pool (one
        /// connection per host for sequential requests). At least 1.
        public var loopCount: Int
        /// The `User-Agent` sent when the request has none.
        public var userAgent: String
        /// Record the HTTP version each network response arrived over in its `userInfo`, under
        /// ``NegotiatedHTTPVersionKey`` (stored with the entry like any `userInfo`). Off by default: it
        /// costs an encoding per response and a field in every stored entry.
        public var recordsHTTPVersion: Bool
        /// Whether an `https` origin that speaks HTTP/2 keeps to one libcurl thread (one connection); `false`
        /// spreads its requests like any other's, one HTTP/2 connection per busy thread. Package-only: the
        /// benchmark measures what the single connection costs (`BENCH_PAIRED=loops`).
        package var keepsHTTP2OriginsOnOneThread = true

        /// Creates a configuration.
        /// - Parameters:
        ///   - connectTimeout: Connection timeout; 10 s.
        ///   - requestTimeout: Whole-request timeout; 60 s.
        ///   - httpVersion: HTTP/2 over TLS when offered, by default.
        ///   - caFile: CA file instead of libcurl's built-in bundle.
        ///   - caDirectory: Hashed CA directory; libcurl's built-in one when `nil`.
        ///   - pinnedPublicKey: Public key pin (`sha256//…`).
        ///   - automaticDecompression: Decode compressed responses; on.
        ///   - maximumBodySize: Largest body in bytes; 8 GiB.
        ///   - inMemoryBodyLimit: Largest body kept in memory; 4 MiB.
        ///   - spoolDirectory: Where larger bodies are spooled (unnamed files); the temporary directory.
        ///   - maximumConnectionsPerHost: Connection limit per host and libcurl thread; 0 (none).
        ///   - loopCount: libcurl threads; one per core.
        ///   - userAgent: Default `User-Agent`.
        ///   - recordsHTTPVersion: Put the negotiated HTTP version in each response's `userInfo`; off.
        public init(
            connectTimeout: Duration = .seconds(10),
            requestTimeout: Duration = .seconds(60),
            httpVersion: HTTPVersion = .http2OverTLS,
            caFile: String? = nil,
            caDirectory: String? = nil,
            pinnedPublicKey: String? = nil,
            automaticDecompression: Bool = true,
            maximumBodySize: Int = 8 << 30,
            inMemoryBodyLimit: Int = 4 << 20,
            spoolDirectory: String = NSTemporaryDirectory(),
            maximumConnectionsPerHost: Int = 0,
            loopCount: Int = ProcessInfo.processInfo.activeProcessorCount,
            userAgent: String = "CacheChain (libcurl)",
            recordsHTTPVersion: Bool = false
        ) {
            self.connectTimeout = connectTimeout
            self.requestTimeout = requestTimeout
            self.httpVersion = httpVersion
            self.caFile = caFile
            self.caDirectory = caDirectory
            self.pinnedPublicKey = pinnedPublicKey
            self.automaticDecompression = automaticDecompression
            self.maximumBodySize = maximumBodySize
            self.inMemoryBodyLimit = inMemoryBodyLimit
            self.spoolDirectory = spoolDirectory
            self.maximumConnectionsPerHost = maximumConnectionsPerHost
            self.loopCount = max(1, loopCount)
            self.userAgent = userAgent
            self.recordsHTTPVersion = recordsHTTPVersion
        }
    }
}

extension Duration {
    /// Whole milliseconds, at least 1 for a positive duration.
    var curlMilliseconds: Int {
        let (seconds, attoseconds) = components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return milliseconds <= 0 && (seconds > 0 || attoseconds > 0) ? 1 : Int(clamping: milliseconds)
    }
}
