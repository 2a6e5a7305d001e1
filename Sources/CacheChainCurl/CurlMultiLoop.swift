import CCurl
import CacheChainCore
import Foundation
import Synchronization

/// The one thread that drives a libcurl multi handle with `curl_multi_poll`.
///
/// Callers never block: ``submit(_:)`` and ``cancel(_:)`` append a command under a mutex and wake the
/// loop with `curl_multi_wakeup` (the only libcurl call made from other threads, and documented as
/// thread-safe). Everything else — adding and removing easy handles, `curl_multi_perform`, reading
/// completion messages, running the data callbacks — happens on the loop thread. Connections stay in the
/// multi handle's pool between transfers, so requests to the same origin reuse them (keep-alive).
final class CurlMultiLoop: Sendable {
    private enum Command {
        case add(CurlTransfer)
        case cancel(UInt64)
        case shutdown
    }

    private let multi: MultiHandle
    private let commands = CommandQueue()

    /// The commands waiting for the loop thread, behind a pthread mutex (`NSLock`), which ThreadSanitizer
    /// understands (it reported `Synchronization.Mutex`'s inout access here as a race under load).
    private final class CommandQueue: @unchecked Sendable {  // invariant: `pending` is only touched while `lock` is held
        private let lock = NSLock()
        private var pending: [Command] = []

        func append(_ command: Command) {
            lock.lock()
            pending.append(command)
            lock.unlock()
        }

        func takeAll() -> [Command] {
            lock.lock()
            defer { lock.unlock() }
            let taken = pending
            pending = []
            return taken
        }
    }

    /// The multi handle pointer, shared with the loop thread.
    private struct MultiHandle: @unchecked Sendable {  // invariant: loop-thread only, except curl_multi_wakeup (below)
        // @unchecked Sendable invariant: the pointer is used only on the loop thread, except for
        // curl_multi_wakeup, which libcurl documents as callable from any thread; the handle is freed by
        // the loop thread after the last command, when no other thread can reach it.
        let pointer: UnsafeMutableRawPointer
    }

    /// Starts the loop thread.
    /// - Parameter maximumConnectionsPerHost: libcurl's per-host connection limit (0 = none).
    /// - Throws: ``CacheChainError`` when libcurl cannot be initialized.
    init(maximumConnectionsPerHost: Int) throws(CacheChainError) {
        if let failure = CurlGlobal.ensureInitialized() {
            throw CacheChainError(.transportFailed, failure)
        }
        guard let pointer = curl_multi_init() else {
            throw CacheChainError(.transportFailed, "curl_multi_init failed (out of memory?)")
        }
        multi = MultiHandle(pointer: pointer)
        _ = cachechain_multi_setopt_long(pointer, CURLMOPT_MAX_HOST_CONNECTIONS, maximumConnectionsPerHost)
        // HTTP/2 multiplexing (libcurl's default since 7.62, set so that older ones do it too).
        _ = cachechain_multi_setopt_long(pointer, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX)
        let thread = Thread { [self] in run() }
        thread.name = "CacheChain libcurl"
        thread.start()
    }

    /// Hands a configured transfer to the loop.
    func submit(_ transfer: CurlTransfer) {
        enqueue(.add(transfer))
    }

    /// Aborts a transfer; a transfer not yet added is refused when it arrives.
    func cancel(_ transfer: CurlTransfer) {
        transfer.isCancelled.store(true, ordering: .relaxed)
        enqueue(.cancel(transfer.id))
    }

    /// Fails the transfers in flight and stops the thread once they are released.
    func shutdown() {
        enqueue(.shutdown)
    }

    private func enqueue(_ command: Command) {
        commands.append(command)
        curl_multi_wakeup(multi.pointer)
    }

    // MARK: - Loop thread

    private func run() {
        let multi = self.multi.pointer
        var transfers: [UInt: CurlTransfer] = [:]
        var byID: [UInt64: UInt] = [:]
        var shuttingDown = false
        func remove(_ key: UInt) -> CurlTransfer? {
            guard let transfer = transfers.removeValue(forKey: key) else { return nil }
            byID[transfer.id] = nil
            curl_multi_remove_handle(multi, transfer.easy)
            return transfer
        }
        while true {
            let pending = commands.takeAll()
            for command in pending {
                switch command {
                case .add(let transfer):
                    if shuttingDown {
                        transfer.finish(.failure(CacheChainError(.cancelled, "the transport was shut down", request: transfer.request)))
                    } else if transfer.isCancelled.load(ordering: .relaxed) {
                        transfer.finish(.failure(CacheChainError(.cancelled, "the request was cancelled before it started", request: transfer.request)))
                    } else if curl_multi_add_handle(multi, transfer.easy) == CURLM_OK {
                        let key = UInt(bitPattern: transfer.easy)
                        transfers[key] = transfer
                        byID[transfer.id] = key
                    } else {
                        transfer.finish(.failure(CacheChainError(.transportFailed, "curl_multi_add_handle failed", request: transfer.request)))
                    }
                case .cancel(let id):
                    if let key = byID[id], let transfer = remove(key) {
                        transfer.finish(.failure(CacheChainError(.cancelled, "the request was cancelled", request: transfer.request)))
                    }
                case .shutdown:
                    shuttingDown = true
                    for key in Array(transfers.keys) {
                        remove(key)?.finish(.failure(CacheChainError(.cancelled, "the transport was shut down", request: nil)))
                    }
                }
            }
            if shuttingDown && transfers.isEmpty { break }
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            var remaining: Int32 = 0
            while let message = curl_multi_info_read(multi, &remaining) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                let code = cachechain_msg_result(message)
                remove(UInt(bitPattern: easy))?.complete(code: code)
            }
            var ready: Int32 = 0
            curl_multi_poll(multi, nil, 0, 1000, &ready)
        }
        curl_multi_cleanup(multi)
    }
}
