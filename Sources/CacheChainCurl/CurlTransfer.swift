import CCurl
import CacheChainCore
import CacheChainPolicy
import HTTPTypes
import Synchronization

/// One request in flight: its easy handle, header list, error buffer and response accumulators.
///
/// Lifecycle: created and configured by the caller's task, handed to the ``CurlMultiLoop`` thread, and
/// from then on read and written only by that thread (libcurl calls the data callbacks from inside
/// `curl_multi_perform` on that thread). ``finish(_:)`` resumes the caller exactly once and frees every
/// C resource. Only ``isCancelled`` is touched by other threads, and it is atomic.
final class CurlTransfer: @unchecked Sendable {  // invariant: confined to the loop thread after submit (below)
    // @unchecked Sendable invariant: after `CurlMultiLoop.submit` the mutable state below is confined to
    // the loop thread; before it, only the creating task touches it. `isCancelled` is an Atomic.

    /// What a finished transfer hands back: the head (its framing fields describing the body), the body, the
    /// HTTP version it arrived over, what was wrong with the framing as received, if anything, and the interim
    /// (1xx) responses that came before the head.
    typealias Received = (
        head: HTTPResponse, body: PipelineBody, version: CurlTransport.NegotiatedHTTPVersion?, framingDefect: MessageFraming.Defect?,
        interim: [HTTPResponse]
    )
    typealias Outcome = Result<Received, CacheChainError>

    let id: UInt64
    let easy: UnsafeMutableRawPointer
    /// Where the easy handle came from and goes back to once the transfer is released.
    private let handles: EasyHandlePool
    let request: HTTPRequest
    let isCancelled = Atomic<Bool>(false)
    var headerList: UnsafeMutablePointer<curl_slist>?
    let errorBuffer: UnsafeMutablePointer<CChar>
    private var continuation: CheckedContinuation<Received, any Error>?
    var head = CurlResponseHead()
    var body: [UInt8] = []
    /// Set once the body outgrows `inMemoryBodyLimit`: from then on every byte goes to the file.
    var spool: BodyFileWriter?
    var spoolFailure: CacheChainError?
    var bodyCount = 0
    let maximumBodySize: Int
    let inMemoryBodyLimit: Int
    let spoolDirectory: String
    let progress: TransferProgressKey.Value?
    /// The caller's handler of interim responses (``InterimResponseKey``), and how many it has been given.
    var interimHandler: InterimResponseKey.Value?
    var reportedInterimCount = 0
    var nextProgressReport = TransferProgressKey.reportingInterval
    var exceededMaximum = false
    /// The caller's stream, for `send(_:context:streamingTo:)`; whether this response claimed it (decided at the
    /// first body byte); and how a paused transfer asks its loop to resume.
    var bodyStream: ResponseBodyStream?
    var hasDecidedStreaming = false
    var isStreamingBody = false
    var resumeStreaming: (@Sendable () -> Void)?
    var decodesContent = false
    private var released = false

    private static let nextID = Atomic<UInt64>(1)

    /// Configures an easy handle from the loop's pool for a request.
    /// - Throws: ``CacheChainError`` with code `invalid-request` or `transport-failed`.
    init(
        request: PipelineRequest,
        configuration: CurlTransport.Configuration,
        timeout: Duration,
        progress: TransferProgressKey.Value?,
        handles: EasyHandlePool
    ) throws(CacheChainError) {
        guard let easy = handles.take() else {
            throw CacheChainError(.transportFailed, "curl_easy_init failed (out of memory?)", request: request.head)
        }
        self.id = Self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        self.easy = easy
        self.handles = handles
        self.request = request.head
        self.maximumBodySize = configuration.maximumBodySize
        self.inMemoryBodyLimit = configuration.inMemoryBodyLimit
        self.spoolDirectory = configuration.spoolDirectory
        self.progress = progress
        self.errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        // Every stored property is set, so if configure throws, deinit runs and releases the handle.
        try configure(request: request, configuration: configuration, timeout: timeout)
    }

    /// Fields the transport never sends as the caller wrote them, because libcurl would turn them into the
    /// message's framing: a `Content-Length` or `Transfer-Encoding` that does not describe the body actually
    /// sent makes the origin read the next request on the connection as this one's body (a desynchronised
    /// connection answers requests with each other's responses), and a `TE` asks the origin for a transfer
    /// coding libcurl would not decode (the coded bytes would be cached as the body). libcurl frames the body
    /// from its real length; on HTTP/2 the frames carry it.
    static let framingFields: Set<HTTPField.Name> = [.contentLength, .transferEncoding, .te]

    deinit {
        // finish(_:) normally released everything; this covers a transfer never submitted or whose set-up failed.
        releaseResourcesIfNeeded()
    }

    // MARK: - Loop-thread side

    func install(_ continuation: CheckedContinuation<Received, any Error>) {
        self.continuation = continuation
    }

    /// Completes the transfer from libcurl's result code (on the loop thread, after removal from the multi handle).
    func complete(code: CURLcode) {
        guard code == CURLE_OK else {
            finish(.failure(error(for: code)))
            return
        }
        var status = 0
        _ = cachechain_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        var version = 0
        _ = cachechain_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        var response = head.response(status: status)
        let framingDefect = MessageFraming.defect(of: response)
        if case .invalidContentLength? = framingDefect {
            // RFC 9112 §6.3: the message framing is invalid, so a user agent discards the response.
            finish(.failure(framingError(framingDefect)))
            return
        }
        let body: PipelineBody
        do throws(CacheChainError) {
            body = try takeBody()
        } catch {
            finish(.failure(error))
            return
        }
        progress?(TransferProgress(receivedBytes: bodyCount, expectedBytes: expectedBodyCount, isComplete: true))
        if decodesContent, let encoding = response.headerFields[.contentEncoding],
            encoding.lowercased() != "identity", request.method != .head
        {
            // libcurl decoded the body: describe what we hold, not what was on the wire.
            response.headerFields[.contentEncoding] = nil
        }
        // Framing fields describe the body received: no Transfer-Encoding, its real Content-Length.
        response = MessageFraming.headDescribing(response, bodyLength: body.count, requestMethod: request.method)
        let negotiated = CurlTransport.NegotiatedHTTPVersion(curlValue: version)
        finish(.success((response, body, negotiated, framingDefect, head.interimResponses)))
    }

    /// Resumes the caller exactly once and releases every C resource.
    func finish(_ outcome: Outcome) {
        releaseResourcesIfNeeded()
        spool?.discard()  // a failed or cancelled transfer leaves no spool file behind
        spool = nil
        guard let continuation else { return }
        self.continuation = nil
        switch outcome {
        case .success(let value): continuation.resume(returning: value)
        case .failure(let error): continuation.resume(throwing: error)
        }
    }

    private func releaseResourcesIfNeeded() {
        guard !released else { return }
        released = true
        handles.recycle(easy)  // after its transfer was removed from the multi handle, or before it was added
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
        errorBuffer.deallocate()
    }
}
