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
    /// HTTP version it arrived over, and what was wrong with the framing as received, if anything.
    typealias Received = (
        head: HTTPResponse, body: HTTPBody, version: CurlTransport.NegotiatedHTTPVersion?, framingDefect: MessageFraming.Defect?
    )
    typealias Outcome = Result<Received, CacheChainError>

    let id: UInt64
    let easy: UnsafeMutableRawPointer
    let request: HTTPRequest
    let isCancelled = Atomic<Bool>(false)
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var continuation: CheckedContinuation<Received, any Error>?
    private var head = CurlResponseHead()
    private var body: [UInt8] = []
    /// Set once the body outgrows `inMemoryBodyLimit`: from then on every byte goes to the file.
    private var spool: BodyFileWriter?
    private var spoolFailure: CacheChainError?
    private var bodyCount = 0
    private let maximumBodySize: Int
    private let inMemoryBodyLimit: Int
    private let spoolDirectory: String
    private let progress: TransferProgressKey.Value?
    private var nextProgressReport = TransferProgressKey.reportingInterval
    private var exceededMaximum = false
    private var decodesContent = false
    private var released = false

    private static let nextID = Atomic<UInt64>(1)

    /// Creates and configures an easy handle for a request.
    /// - Throws: ``CacheChainError`` with code `invalid-request` or `transport-failed`.
    init(
        request: PipelineRequest,
        configuration: CurlTransport.Configuration,
        timeout: Duration,
        progress: TransferProgressKey.Value? = nil
    ) throws(CacheChainError) {
        if let failure = CurlGlobal.ensureInitialized() {
            throw CacheChainError(.transportFailed, failure + "; check the libcurl installation")
        }
        guard let easy = curl_easy_init() else {
            throw CacheChainError(.transportFailed, "curl_easy_init failed (out of memory?)", request: request.head)
        }
        self.id = Self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        self.easy = easy
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

    // MARK: - Configuration

    private func configure(
        request: PipelineRequest,
        configuration: CurlTransport.Configuration,
        timeout: Duration
    ) throws(CacheChainError) {
        let head = request.head
        guard let scheme = head.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let authority = head.authority, !authority.isEmpty
        else {
            throw CacheChainError(.invalidRequest, "CurlTransport needs an absolute http or https request", request: head)
        }
        let url = "\(scheme)://\(authority)\(head.path ?? "/")"
        try set(CURLOPT_URL, string: url)
        try set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_FOLLOWLOCATION, 0)  // the cache must see every hop: redirects are an interceptor's job
        try set(CURLOPT_PROTOCOLS_STR, string: "http,https")
        try set(CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.curlMilliseconds)
        try set(CURLOPT_TIMEOUT_MS, timeout.curlMilliseconds)
        try set(CURLOPT_MAXFILESIZE_LARGE, offset: Int(configuration.maximumBodySize))
        switch configuration.httpVersion {
        case .http1_1: try set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1)
        case .http2OverTLS:
            try set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
            // Wait for a connection still being set up to this origin, to multiplex on it if it speaks h2.
            if scheme == "https" { try set(CURLOPT_PIPEWAIT, 1) }
        }
        if let caFile = configuration.caFile { try set(CURLOPT_CAINFO, string: caFile) }
        if let caDirectory = configuration.caDirectory { try set(CURLOPT_CAPATH, string: caDirectory) }
        if let pin = configuration.pinnedPublicKey { try set(CURLOPT_PINNEDPUBLICKEY, string: pin) }
        if head.headerFields[.acceptEncoding] == nil, configuration.automaticDecompression {
            try set(CURLOPT_ACCEPT_ENCODING, string: "")  // every encoding libcurl can decode
            decodesContent = true
        }
        if head.headerFields[.userAgent] == nil { try set(CURLOPT_USERAGENT, string: configuration.userAgent) }

        switch head.method {
        case .get: break
        case .head: try set(CURLOPT_NOBODY, 1)
        default: try set(CURLOPT_CUSTOMREQUEST, string: head.method.rawValue)
        }
        if let body = request.body, head.method != .get, head.method != .head {
            try set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int(body.count))
            let bytes = try body.collect()  // request bodies are sent from memory (libcurl copies them)
            let code = bytes.withUnsafeBufferPointer { buffer in
                cachechain_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: buffer.baseAddress ?? UnsafePointer(bitPattern: 1)))
            }
            try check(code, "request body")
        } else if head.method == .post || head.method == .put || head.method == .patch {
            try set(CURLOPT_POSTFIELDSIZE_LARGE, offset: 0)
            try set(CURLOPT_COPYPOSTFIELDS, string: "")
        }

        var list: UnsafeMutablePointer<curl_slist>?
        for field in head.headerFields where !Self.framingFields.contains(field.name) {
            // "Name;" sends a header with an empty value; "Name:" would remove it. The value's bytes are
            // sent as they are (not re-encoded through String), so Latin-1 values survive.
            var line = Array(field.name.rawName.utf8)
            field.withUnsafeBytesOfValue { value in
                line += value.isEmpty ? [UInt8(ascii: ";")] : [UInt8(ascii: ":"), UInt8(ascii: " ")] + value
            }
            line.append(0)
            let appended = line.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { curl_slist_append(list, $0.baseAddress) }
            }
            guard let appended else {
                curl_slist_free_all(list)
                throw CacheChainError(.transportFailed, "could not build the header list (out of memory?)", request: head)
            }
            list = appended
        }
        if head.headerFields[.expect] == nil, let appended = curl_slist_append(list, "Expect:") { list = appended }
        headerList = list
        if let list { try check(cachechain_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, list), "headers") }

        let context = Unmanaged.passUnretained(self).toOpaque()
        try check(cachechain_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, curlWriteCallback), "write callback")
        try set(CURLOPT_WRITEDATA, pointer: context)
        try check(cachechain_easy_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION, curlHeaderCallback), "header callback")
        try set(CURLOPT_HEADERDATA, pointer: context)
        try check(cachechain_easy_setopt_progress_callback(easy, CURLOPT_XFERINFOFUNCTION, curlProgressCallback), "progress callback")
        try set(CURLOPT_XFERINFODATA, pointer: context)
        try set(CURLOPT_NOPROGRESS, 0)
    }

    private func set(_ option: CURLoption, _ value: Int) throws(CacheChainError) {
        try check(cachechain_easy_setopt_long(easy, option, value), "option \(option.rawValue)")
    }

    private func set(_ option: CURLoption, offset: Int) throws(CacheChainError) {
        try check(cachechain_easy_setopt_off(easy, option, offset), "option \(option.rawValue)")
    }

    private func set(_ option: CURLoption, string: String) throws(CacheChainError) {
        try check(cachechain_easy_setopt_string(easy, option, string), "option \(option.rawValue)")
    }

    private func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer) throws(CacheChainError) {
        try check(cachechain_easy_setopt_pointer(easy, option, pointer), "option \(option.rawValue)")
    }

    private func check(_ code: CURLcode, _ what: String) throws(CacheChainError) {
        guard code != CURLE_OK else { return }
        let text = curl_easy_strerror(code).map { String(cString: $0) } ?? "unknown"
        throw CacheChainError(
            .transportFailed,
            "libcurl rejected \(what): \(text) (code \(code.rawValue)); the installed libcurl may be too old",
            request: request
        )
    }

    // MARK: - Loop-thread side

    func install(_ continuation: CheckedContinuation<Received, any Error>) {
        self.continuation = continuation
    }

    func appendBody(_ pointer: UnsafeRawBufferPointer) -> Bool {
        if bodyCount + pointer.count > maximumBodySize {
            exceededMaximum = true
            return false
        }
        bodyCount += pointer.count
        do throws(CacheChainError) {
            if let spool {
                try spool.append(pointer)
            } else if bodyCount > inMemoryBodyLimit {
                // Spool from here on: memory stays bounded by the limit whatever the body's size.
                let writer = try BodyFileWriter(directory: spoolDirectory)
                spool = writer
                try writer.append(body)
                body = []
                try writer.append(pointer)
            } else {
                body.append(contentsOf: pointer)
            }
            if let progress, bodyCount >= nextProgressReport {
                let interval = TransferProgressKey.reportingInterval
                nextProgressReport = (bodyCount / interval + 1) * interval   // the next whole MiB: no drift
                progress(TransferProgress(receivedBytes: bodyCount, expectedBytes: expectedBodyCount, isComplete: false))
            }
            return true
        } catch {
            spoolFailure = error
            return false
        }
    }

    /// The announced body size: `Content-Length`, unless the body is content-encoded (libcurl decodes it,
    /// so the received count differs from the header).
    private var expectedBodyCount: Int? {
        var length: Int?
        var isEncoded = false
        for field in head.fields {
            switch field.name.lowercased() {
            case "content-length": length = Int(String(decoding: field.value, as: UTF8.self))
            case "content-encoding": isEncoded = String(decoding: field.value, as: UTF8.self).lowercased() != "identity"
            default: break
            }
        }
        return isEncoded ? nil : length
    }

    /// The received body: in memory, or the spool file.
    private func takeBody() throws(CacheChainError) -> HTTPBody {
        guard let spool else { return HTTPBody(body) }
        self.spool = nil
        return try spool.finish()
    }

    func appendHeaderLine(_ pointer: UnsafeRawBufferPointer) {
        head.consume(line: pointer)
        // A coding libcurl cannot decode would fail the transfer when the body arrives: take the body as it
        // is instead (libcurl reads this option per body chunk, so setting it before the body takes effect).
        if decodesContent, let coding = head.lastField(named: "content-encoding"), !CurlContentCodings.canDecode(coding) {
            decodesContent = false
            _ = cachechain_easy_setopt_long(easy, CURLOPT_HTTP_CONTENT_DECODING, 0)
        }
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
        let body: HTTPBody
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
        finish(.success((response, body, CurlTransport.NegotiatedHTTPVersion(curlValue: version), framingDefect)))
    }

    /// The error for a response whose framing is invalid: it names the fields, not libcurl's symptom.
    private func framingError(_ defect: MessageFraming.Defect?) -> CacheChainError {
        let url = "\(request.scheme ?? "?")://\(request.authority ?? "?")\(request.path ?? "")"
        return CacheChainError(
            .transportFailed,
            "the response from \(url) was discarded: \(defect.map(String.init(describing:)) ?? "invalid framing"); the origin must send one Content-Length",
            request: request
        )
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
        curl_easy_cleanup(easy)
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
        errorBuffer.deallocate()
    }

    private func error(for code: CURLcode) -> CacheChainError {
        let summary = curl_easy_strerror(code).map { String(cString: $0) } ?? "error"
        let detail = String(cString: errorBuffer)
        let text = detail.isEmpty ? summary : "\(summary): \(detail)"
        let url = "\(request.scheme ?? "?")://\(request.authority ?? "?")\(request.path ?? "")"
        if isCancelled.load(ordering: .relaxed) || code == CURLE_ABORTED_BY_CALLBACK {
            return CacheChainError(.cancelled, "the request to \(url) was cancelled", request: request)
        }
        if let defect = MessageFraming.defect(of: head.response(status: 0)), case .invalidContentLength = defect {
            return framingError(defect)  // libcurl read one of the lengths and ran short or long
        }
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return CacheChainError(.timedOut, "\(url) timed out (\(text)); raise the timeout or check the origin", request: request)
        case CURLE_WRITE_ERROR where spoolFailure != nil:
            return CacheChainError(
                .transportFailed,
                "the response from \(url) could not be spooled to \(spoolDirectory): \(spoolFailure?.message ?? "write failed"); free disk space or set CurlTransport.Configuration.spoolDirectory",
                request: request,
                underlying: spoolFailure
            )
        case CURLE_WRITE_ERROR where exceededMaximum, CURLE_FILESIZE_EXCEEDED:
            return CacheChainError(
                .transportFailed,
                "the response from \(url) is larger than maximumBodySize (\(maximumBodySize) bytes); raise it in CurlTransport.Configuration",
                request: request
            )
        default:
            return CacheChainError(.transportFailed, "libcurl failed for \(url): \(text) (\(CurlTransport.curlCodeLabel)\(code.rawValue))", request: request)
        }
    }
}

// MARK: - C callbacks (no captures: the transfer comes back through the userdata pointer)

private let curlWriteCallback: cachechain_curl_data_callback = { data, size, count, userdata in
    guard let userdata else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
    let length = size * count
    guard let data else { return length }
    return transfer.appendBody(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

private let curlHeaderCallback: cachechain_curl_data_callback = { data, size, count, userdata in
    guard let userdata else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
    let length = size * count
    if let data { transfer.appendHeaderLine(UnsafeRawBufferPointer(start: data, count: length)) }
    return length
}

private let curlProgressCallback: cachechain_curl_progress_callback = { userdata, _, _, _, _ in
    guard let userdata else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
    return transfer.isCancelled.load(ordering: .relaxed) ? 1 : 0
}
