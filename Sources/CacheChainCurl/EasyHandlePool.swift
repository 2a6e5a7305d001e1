import CCurl
import CacheChainCore

/// The easy handles one ``CurlMultiLoop`` has finished with, reset and kept for its next transfers.
///
/// A new easy handle per transfer costs its allocation and libcurl's set-up of every default, and its clean-up
/// afterwards; `curl_easy_reset` puts a used one back to the defaults without either (the options of the last
/// transfer are gone, so nothing of one request leaks into the next). Connections, the DNS cache and TLS sessions
/// live in the multi handle, so a recycled handle reuses them as a new one would.
///
/// A handle is in at most one place at a time: in the pool, or owned by one ``CurlTransfer`` (and, while it runs,
/// added to the multi handle). ``recycle(_:)`` takes handles already removed from the multi handle.
final class EasyHandlePool: Sendable {
    private struct State {
        var idle: [CurlEasyHandle] = []
        var isClosed = false
    }

    /// How many idle handles are kept; a recycled handle beyond that is cleaned up.
    let capacity: Int
    private let state = LockedValue(State())

    /// An easy handle pointer moved between threads.
    struct CurlEasyHandle: @unchecked Sendable {  // invariant: owned by one place at a time (the pool or one transfer)
        let pointer: UnsafeMutableRawPointer
    }

    /// - Parameter capacity: How many idle handles to keep (at least the transfers a loop usually runs at once).
    init(capacity: Int = 32) {
        self.capacity = capacity
    }

    /// An idle handle, reset to libcurl's defaults, or a new one; `nil` when libcurl cannot allocate one.
    func take() -> UnsafeMutableRawPointer? {
        let pooled = state.withLock { $0.idle.popLast() }
        return pooled?.pointer ?? curl_easy_init()
    }

    /// Resets a handle the caller is done with and keeps it, or cleans it up when the pool is full or closed.
    /// The handle must not be in a multi handle.
    func recycle(_ easy: UnsafeMutableRawPointer) {
        curl_easy_reset(easy)
        let kept = state.withLock { state in
            guard !state.isClosed, state.idle.count < capacity else { return false }
            state.idle.append(CurlEasyHandle(pointer: easy))
            return true
        }
        if !kept { curl_easy_cleanup(easy) }
    }

    /// Cleans up every idle handle; later recycled handles are cleaned up at once.
    func close() {
        let idle = state.withLock { state in
            state.isClosed = true
            defer { state.idle = [] }
            return state.idle
        }
        for handle in idle { curl_easy_cleanup(handle.pointer) }
    }

    /// How many handles wait in the pool (for tests).
    var idleCount: Int { state.withLock { $0.idle.count } }
}
