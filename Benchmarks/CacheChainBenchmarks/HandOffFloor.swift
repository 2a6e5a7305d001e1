import CCurl
import Foundation
import Synchronization

/// A thread parked in `curl_multi_poll` that resumes whatever Swift tasks hand it, doing no HTTP: the shape of
/// `CurlTransport` (a Swift task hands its transfer to the dedicated libcurl thread with `curl_multi_wakeup`
/// and is resumed from that thread when the transfer ends) with the transfer taken out. Timing a hand-off and
/// back measures the price of that design on this machine, which the plain libcurl loop — the same thread
/// doing everything — never pays.
final class HandOffLoop: @unchecked Sendable {  // invariant: `multi` is polled by the loop thread only; other threads only call curl_multi_wakeup (documented as callable from any thread); `waiting` is guarded by its Mutex
    private let multi: UnsafeMutableRawPointer
    private let waiting = Mutex<[CheckedContinuation<Void, Never>]>([])
    private let stopped = Atomic<Bool>(false)

    init() throws {
        guard let multi = curl_multi_init() else { throw BenchmarkError("curl_multi_init failed") }
        self.multi = multi
        let thread = Thread { [self] in run() }
        thread.name = "hand-off-floor"
        thread.start()
    }

    /// Hands a job to the loop thread and returns when that thread has resumed this task.
    func handOff() async {
        await withCheckedContinuation { continuation in
            waiting.withLock { $0.append(continuation) }
            curl_multi_wakeup(multi)
        }
    }

    /// Ends the loop; the thread frees the multi handle when it leaves (within its 100 ms poll timeout).
    func stop() {
        curl_multi_wakeup(multi)
        stopped.store(true, ordering: .releasing)
    }

    private func run() {
        while !stopped.load(ordering: .acquiring) {
            var ready: Int32 = 0
            _ = curl_multi_poll(multi, nil, 0, 100, &ready)
            let jobs = waiting.withLock { jobs in
                let taken = jobs
                jobs.removeAll(keepingCapacity: true)
                return taken
            }
            for job in jobs { job.resume() }
        }
        curl_multi_cleanup(multi)
    }
}

/// The hand-off floor: a Swift task to a `curl_multi_poll` thread and back, with no I/O.
func measureHandOffFloor(iterations: Int) async throws -> Measurement {
    let loop = try HandOffLoop()
    defer { loop.stop() }
    return await measure("hand-off to a curl_multi_poll thread + back", iterations: iterations, warmUp: 100) {
        await loop.handOff()
    }
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
            samples.append(Double(elapsed.components.attoseconds) / 1e9 + Double(elapsed.components.seconds) * 1e9)
        }
    }
    return Measurement(name: "plain libcurl multi loop (new easy/request)", samples: samples)
}
