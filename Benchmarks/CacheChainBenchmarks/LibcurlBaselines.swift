import CCurl
import Foundation

// The plain libcurl loops the network scenario compares CurlTransport with.

/// One libcurl easy handle reused for every transfer, as the benchmark's plain-libcurl baselines use it: the URL,
/// `CURLOPT_NOSIGNAL`, optional request fields, and a write callback that hands each piece to ``onWrite``, which
/// returns how many bytes it took (fewer stops the transfer).
final class BaselineEasyHandle: @unchecked Sendable {  // invariant: used by one thread at a time (its owner's)
    private let easy: UnsafeMutableRawPointer
    private var headers: UnsafeMutablePointer<curl_slist>?
    /// Receives each piece of the body; returns the bytes taken.
    var onWrite: (UnsafeRawBufferPointer) -> Int = { $0.count }

    init(url: String, headers: [String] = []) throws {
        guard let easy = curl_easy_init() else { throw BenchmarkError("curl_easy_init failed") }
        self.easy = easy
        for header in headers { self.headers = curl_slist_append(self.headers, header) }
        if let list = self.headers { _ = cachechain_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, list) }
        let callback: cachechain_curl_data_callback = { data, size, count, userdata in
            guard let data, let userdata else { return 0 }
            let handle = Unmanaged<BaselineEasyHandle>.fromOpaque(userdata).takeUnretainedValue()
            return handle.onWrite(UnsafeRawBufferPointer(start: data, count: size * count))
        }
        _ = cachechain_easy_setopt_string(easy, CURLOPT_URL, url)
        _ = cachechain_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = cachechain_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, callback)
        _ = cachechain_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        curl_easy_cleanup(easy)
        curl_slist_free_all(headers)
    }

    /// One transfer with `curl_easy_perform` on the calling thread.
    /// - Returns: libcurl's result and the response status.
    func perform() -> (code: CURLcode, status: Int) {
        let code = curl_easy_perform(easy)
        var status = 0
        _ = cachechain_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        return (code, status)
    }
}

/// The floor: one easy handle reused for every request, `curl_easy_perform` on this thread.
func rawLibcurlLoop(
    url: String,
    iterations: Int,
    expectedSize: Int,
    headers: [String] = [],
    expectedStatus: Int = 200
) throws -> Measurement {
    let handle = try BaselineEasyHandle(url: url, headers: headers)
    var bytes: [UInt8] = []
    handle.onWrite = { piece in
        bytes.append(contentsOf: piece)
        return piece.count
    }
    var samples: [Double] = []
    let clock = ContinuousClock()
    for index in 0..<(iterations + 10) {
        bytes.removeAll(keepingCapacity: true)
        let start = clock.now
        let (code, status) = handle.perform()
        let elapsed = clock.now - start
        guard code == CURLE_OK, bytes.count == expectedSize, status == expectedStatus else {
            throw BenchmarkError("plain libcurl loop failed: code \(code.rawValue), status \(status), \(bytes.count) bytes")
        }
        if index >= 10 {
            samples.append(elapsed.nanoseconds)
        }
    }
    return Measurement(name: "plain libcurl loop (1 easy handle)", samples: samples)
}

/// libcurl's multi interface on this thread, with a new easy handle per request (set up with the options
/// `CurlTransport` sets) added to one multi handle that keeps the connection: what `CurlTransport` asks of
/// libcurl, without its thread hand-offs and Swift callbacks.
func plainLibcurlMultiLoop(url: String, iterations: Int, expectedSize: Int) throws -> Measurement {
    guard let multi = curl_multi_init() else { throw BenchmarkError("curl_multi_init failed") }
    defer { curl_multi_cleanup(multi) }
    final class Sink { var count = 0 }
    let sink = Sink()
    let callback: cachechain_curl_data_callback = { data, size, count, userdata in
        guard data != nil, let userdata else { return 0 }
        Unmanaged<Sink>.fromOpaque(userdata).takeUnretainedValue().count += size * count
        return size * count
    }
    let progress: cachechain_curl_progress_callback = { _, _, _, _, _ in 0 }
    var samples: [Double] = []
    let clock = ContinuousClock()
    for index in 0..<(iterations + 10) {
        sink.count = 0
        let start = clock.now
        guard let easy = curl_easy_init() else { throw BenchmarkError("curl_easy_init failed") }
        _ = cachechain_easy_setopt_string(easy, CURLOPT_URL, url)
        _ = cachechain_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, callback)
        _ = cachechain_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, Unmanaged.passUnretained(sink).toOpaque())
        // The options CurlTransport sets on every transfer that matter for a plain-HTTP GET.
        _ = cachechain_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = cachechain_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = cachechain_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, 30_000)
        _ = cachechain_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, 60_000)
        _ = cachechain_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        _ = cachechain_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, "")
        _ = cachechain_easy_setopt_string(easy, CURLOPT_USERAGENT, "CacheChain")
        _ = cachechain_easy_setopt_progress_callback(easy, CURLOPT_XFERINFOFUNCTION, progress)
        _ = cachechain_easy_setopt_long(easy, CURLOPT_NOPROGRESS, 0)
        curl_multi_add_handle(multi, easy)
        var running: Int32 = 1
        while running > 0 {
            curl_multi_perform(multi, &running)
            if running > 0 { curl_multi_poll(multi, nil, 0, 1000, nil) }
        }
        var pending: Int32 = 0
        var code = CURLE_OK
        while let message = curl_multi_info_read(multi, &pending) {
            if message.pointee.msg == CURLMSG_DONE { code = message.pointee.data.result }
        }
        curl_multi_remove_handle(multi, easy)
        curl_easy_cleanup(easy)
        let elapsed = clock.now - start
        guard code == CURLE_OK, sink.count == expectedSize else {
            throw BenchmarkError("plain libcurl multi loop failed: code \(code.rawValue), \(sink.count) bytes")
        }
        if index >= 10 {
            samples.append(elapsed.nanoseconds)
        }
    }
    return Measurement(name: "plain libcurl multi loop (new easy/request)", samples: samples)
}
