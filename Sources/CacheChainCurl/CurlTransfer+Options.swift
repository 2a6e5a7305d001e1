import CCurl
import CacheChainCore
import CacheChainPolicy
import HTTPTypes

// Setting up a transfer's easy handle from the request and the transport's configuration.
extension CurlTransfer {
    // MARK: - Configuration

    func configure(
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
        try set(CURLOPT_MAXFILESIZE_LARGE, offset: configuration.maximumBodySize)
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
            try set(CURLOPT_POSTFIELDSIZE_LARGE, offset: body.count)
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
        // No progress callback: libcurl would call it on every round of the loop, and cancellation does not need
        // it (`CurlMultiLoop.cancel` removes the transfer on the loop thread).
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
}
