#if Loopback
import NIOCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the loopback origin answers for a path: status, headers, body, validators and an optional delay.
///
/// ```swift
/// origin.route("/a", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "hello", etag: "\"v1\""))
/// ```
public struct LoopbackRoute: Sendable {
    /// A response body.
    public enum Body: Sendable {
        /// These bytes.
        case bytes([UInt8])
        /// `count` bytes of a deterministic pattern (byte `i` is `i % 251`), streamed in 64 KiB chunks
        /// without ever being held whole in memory.
        case generated(count: Int)
        /// A body announced as `count` bytes (`Content-Length`) of which only the first `sentBeforeStall` are sent:
        /// the rest never comes, and the connection stays open until the client gives up or the origin shuts
        /// down. For timeouts that must cover the body, not just the head.
        case stalled(count: Int, sentBeforeStall: Int)

        /// The body's length in bytes.
        public var count: Int {
            switch self {
            case .bytes(let bytes): bytes.count
            case .generated(let count), .stalled(let count, _): count
            }
        }

        /// The byte at `index` of a ``generated(count:)`` body: `UInt8(index % 251)`.
        /// - Parameter index: The byte's offset in the body, from 0.
        /// - Returns: The byte.
        public static func generatedByte(at index: Int) -> UInt8 { UInt8(index % 251) }

        /// Whether `bytes` are the bytes of a ``generated(count:)`` body starting at offset `offset`: a `memcmp`
        /// per 64 KiB against the pattern, so checking a large body costs no more than reading it.
        /// - Parameters:
        ///   - bytes: A piece of a received body.
        ///   - offset: Where the piece starts in the body.
        /// - Returns: Whether every byte matches.
        public static func isGeneratedPattern(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
            guard let received = bytes.baseAddress else { return true }
            var checked = 0
            while checked < bytes.count {
                let start = (offset + checked) % 251
                let length = min(bytes.count - checked, LoopbackHandler.chunkSize)
                let equal = patternTable.withUnsafeBytes { pattern in
                    guard let expected = pattern.baseAddress else { return false }
                    return memcmp(expected + start, received + checked, length) == 0
                }
                guard equal else { return false }
                checked += length
            }
            return true
        }

        /// One pattern period followed by one chunk, so any chunk is a single contiguous slice.
        private static let patternTable: [UInt8] = (0..<(251 + LoopbackHandler.chunkSize)).map { generatedByte(at: $0) }

        /// Appends bytes `offset ..< offset + count` of the generated pattern to a buffer.
        static func writePattern(from offset: Int, count: Int, into buffer: inout ByteBuffer) {
            var written = 0
            while written < count {
                let start = (offset + written) % 251
                let length = min(count - written, LoopbackHandler.chunkSize)
                buffer.writeBytes(patternTable[start..<(start + length)])
                written += length
            }
        }
    }

    /// The status code.
    public var status: Int
    /// Header lines sent with every answer (a route's own `Date` replaces the server's).
    public var headers: [LoopbackHeader]
    /// The body.
    public var body: Body
    /// How long the server waits before answering (scheduled on the event loop, not slept).
    public var delay: Duration?
    /// The entity tag sent as `ETag` and compared with `If-None-Match` (e.g. `"v1"`, quotes included).
    public var etag: String?
    /// The `Last-Modified` date sent and compared with `If-Modified-Since`.
    public var lastModified: String?
    /// Holds answers back until the gate is opened (then ``delay`` applies); `nil` answers at once.
    public var gate: LoopbackGate?
    /// The whole answer as bytes on the wire — status line, header section, framing, body, trailers — written
    /// as given, without the HTTP encoder's checks, after which the connection is closed: a misbehaving
    /// origin (a chunked body with a `Content-Length`, two `Content-Length`s, trailer fields…). HTTP/1.1 only
    /// (plain or over TLS); an HTTP/2 request for such a route is answered `500`. The other properties but
    /// ``gate`` and ``delay`` are ignored.
    public var rawResponse: [UInt8]?
    /// Interim (1xx) responses sent before the answer, in order, each a status code and its header lines: e.g.
    /// `[(103, [("Link", "</style.css>; rel=preload")])]` for `103 Early Hints` (RFC 8297). Written as bytes
    /// below the HTTP/1.1 encoder, before the answer's head; ignored over HTTP/2 and by a ``rawResponse`` route.
    public var interimResponses: [(status: Int, headers: [(String, String)])] = []
    /// Stops a ``Body/generated(count:)`` body once at least this many bytes went out, until
    /// ``bodyPauseGate`` opens: a download that is reliably under way, for as long as a test needs.
    public var bodyPauseOffset: Int = 0
    /// The gate a generated body waits for after ``bodyPauseOffset`` bytes; `nil` never pauses.
    public var bodyPauseGate: LoopbackGate?
    /// Whether a `GET` with one `Range` of the `bytes` unit gets a `206 Partial Content` of a ``Body/bytes(_:)``
    /// body with its `Content-Range` (or `416` past the end), honouring `If-Range` against ``etag`` and
    /// ``lastModified`` (RFC 9110 §13.1.5, §14); off by default (the whole `200`, as a server may answer).
    public var servesRanges = false

    /// Creates a route.
    /// - Parameters:
    ///   - status: The status code; 200.
    ///   - headers: `(name, value)` header lines.
    ///   - body: The body.
    ///   - delay: A delay before answering.
    ///   - etag: The entity tag, with quotes.
    ///   - lastModified: The `Last-Modified` HTTP-date.
    public init(
        status: Int = 200,
        headers: [(String, String)] = [],
        body: Body = .bytes([]),
        delay: Duration? = nil,
        etag: String? = nil,
        lastModified: String? = nil
    ) {
        self.status = status
        self.headers = headers.map { LoopbackHeader($0.0, $0.1) }
        self.body = body
        self.delay = delay
        self.etag = etag
        self.lastModified = lastModified
    }

    /// Creates a route that writes its answer as raw bytes (see ``rawResponse``).
    /// - Parameter rawResponse: The answer as it goes on the wire, e.g.
    ///   `"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"`.
    public init(rawResponse: String) {
        self.init()
        self.rawResponse = Array(rawResponse.utf8)
    }

    /// Creates a route with a text body.
    /// - Parameters:
    ///   - status: The status code; 200.
    ///   - headers: `(name, value)` header lines.
    ///   - body: The body text (UTF-8).
    ///   - delay: A delay before answering.
    ///   - etag: The entity tag, with quotes.
    ///   - lastModified: The `Last-Modified` HTTP-date.
    public init(
        status: Int = 200,
        headers: [(String, String)] = [],
        body: String,
        delay: Duration? = nil,
        etag: String? = nil,
        lastModified: String? = nil
    ) {
        self.init(status: status, headers: headers, body: .bytes(Array(body.utf8)), delay: delay, etag: etag, lastModified: lastModified)
    }
}
#endif
