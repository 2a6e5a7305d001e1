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
///
/// The loop is also a `TaskExecutor` (``CurlTransport/taskExecutor``): jobs of tasks that prefer it run on the
/// loop thread between rounds of `curl_multi_perform`. Such a task hands its transfer over and is resumed
/// without crossing threads, which saves the two thread wake-ups a request otherwise costs.
final class CurlMultiLoop: TaskExecutor, Sendable {
    private enum Command {
        case add(CurlTransfer)
        case cancel(UInt64)
        case resume(UInt64)
        case run(UnownedJob)
        case shutdown
    }

    private let multi: MultiHandle
    /// Transfers handed to this loop and not yet returned to their callers (``CurlTransport`` sends a new one
    /// to the loop with the fewest).
    let transfersInFlight = Atomic<Int>(0)
    private let commands = CommandQueue()
    /// `pthread_self()` of the loop thread once it runs (0 before): work it enqueues itself needs no wake-up.
    private let loopThread = Atomic<UInt>(0)
    /// Whether the loop thread waits (or is about to wait) in `curl_multi_poll`: only then does a command need
    /// `curl_multi_wakeup`. While it runs or spins it finds new commands itself, so a submission costs no system
    /// call and no thread wake-up.
    private let isParked = Atomic<Bool>(false)
    /// The easy handles of finished transfers, reset for the next ones.
    let easyHandles = EasyHandlePool()
    /// How long the loop thread, idle after finishing a transfer, keeps looking for the next command before it
    /// parks: a caller resumed with its response often submits its next request within this time, and finding it
    /// costs no `curl_multi_wakeup` and no thread wake-up. It yields the core between looks. Measured on the paired
    /// network rows (2 cores): about one context switch less per sequential request (5.1 → 3.9), no wall-clock
    /// change on an idle machine, ~8 µs more CPU per request there; see issue 43's notes before changing it.
    static let idleSpin: Duration = .microseconds(100)
    /// Whether the loop thread has ended, and the tasks waiting for it to (``shutdownAndWait()``).
    private let ending = LockedValue<(hasEnded: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// The commands waiting for the loop thread, behind a ``LockedValue`` (a pthread mutex, which ThreadSanitizer
    /// understands; it reported `Synchronization.Mutex`'s inout access here as a race under load).
    private final class CommandQueue: Sendable {
        private struct State {
            var pending: [Command] = []
            var closed = false
        }

        private let state = LockedValue(State())
        /// Whether commands wait: read without the lock by the loop while it spins and before it parks.
        private let hasPending = Atomic<Bool>(false)

        /// Appends a command and, still under the lock, runs `wake` (so it never runs after ``close()`` returned
        /// and the loop freed what `wake` touches); false once the loop thread has ended (nothing was appended).
        func append(_ command: Command, wake: () -> Void) -> Bool {
            state.withLock { state in
                guard !state.closed else { return false }
                state.pending.append(command)
                hasPending.store(true, ordering: .sequentiallyConsistent)
                wake()
                return true
            }
        }

        func takeAll() -> [Command] {
            guard hasPending.load(ordering: .sequentiallyConsistent) else { return [] }
            return state.withLock { state in
                hasPending.store(false, ordering: .sequentiallyConsistent)
                defer { state.pending = [] }
                return state.pending
            }
        }

        /// No command waits (a lock-free read, ordered with ``append(_:wake:)``'s store).
        var isEmpty: Bool { !hasPending.load(ordering: .sequentiallyConsistent) }

        var isClosed: Bool { state.withLock { $0.closed } }

        /// Refuses every later command and returns the ones still waiting.
        func close() -> [Command] {
            state.withLock { state in
                state.closed = true
                hasPending.store(false, ordering: .sequentiallyConsistent)
                defer { state.pending = [] }
                return state.pending
            }
        }
    }

    /// The multi handle pointer, shared with the loop thread.
    private struct MultiHandle: @unchecked Sendable {  // invariant: loop-thread only, except curl_multi_wakeup (below)
        // @unchecked Sendable invariant: the pointer is used only on the loop thread, except for
        // curl_multi_wakeup, which libcurl documents as callable from any thread and which is only called under
        // the command queue's lock while the queue is open; the loop thread closes the queue before it frees
        // the handle, so no other thread can reach it then.
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
        thread.name = "CacheChain curl"  // at most 15 bytes: Linux ignores a longer thread name
        thread.start()
    }

    /// Whether the caller runs on the loop thread.
    var isCurrentThread: Bool {
        loopThread.load(ordering: .relaxed) == UInt(pthread_self())
    }

    /// Whether the loop thread has ended (after ``shutdown()``); later jobs run on the global executor.
    var hasEnded: Bool {
        commands.isClosed
    }

    /// Hands a configured transfer to the loop.
    func submit(_ transfer: CurlTransfer) {
        if !enqueue(.add(transfer)) {
            transfer.finish(.failure(CacheChainError(.cancelled, "the transport was shut down", request: transfer.request)))
        }
    }

    /// Aborts a transfer; a transfer not yet added is refused when it arrives.
    func cancel(_ transfer: CurlTransfer) {
        transfer.isCancelled.store(true, ordering: .relaxed)
        enqueue(.cancel(transfer.id))
    }

    /// Resumes a transfer paused because the caller's stream was full (nothing when it has ended).
    func resume(_ transferID: UInt64) {
        enqueue(.resume(transferID))
    }

    /// Fails the transfers in flight and stops the thread once they are released.
    func shutdown() {
        enqueue(.shutdown)
    }

    /// ``shutdown()``, then waits until the loop thread has ended and freed the multi handle.
    func shutdownAndWait() async {
        shutdown()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let hasEnded = ending.withLock { state in
                if !state.hasEnded { state.waiters.append(continuation) }
                return state.hasEnded
            }
            if hasEnded { continuation.resume() }
        }
    }

    /// Runs a job of a task that prefers this executor on the loop thread (`TaskExecutor`). Once the loop has
    /// ended (the transport was released), jobs go to the global concurrent executor instead, so such a task
    /// still finishes.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if !enqueue(.run(job)) {
            globalConcurrentExecutor.enqueue(ExecutorJob(job))
        }
    }

    @discardableResult
    private func enqueue(_ command: Command) -> Bool {
        let onLoopThread = isCurrentThread
        return commands.append(command) {
            // The loop thread checks the queue before it waits, so only a parked loop needs a wake-up from
            // another thread. The loop sets `isParked` and then checks the queue; this appended and then reads
            // `isParked` (both sequentially consistent): either the loop sees the command or this sees it parked.
            if !onLoopThread, isParked.load(ordering: .sequentiallyConsistent) { curl_multi_wakeup(multi.pointer) }
        }
    }

    // MARK: - Loop thread

    private func run() {
        loopThread.store(UInt(pthread_self()), ordering: .relaxed)
        let multi = self.multi.pointer
        let executor = asUnownedTaskExecutor()
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
                case .resume(let id):
                    if let key = byID[id] { transfers[key]?.resumeAfterPause() }
                case .run(let job):
                    job.runSynchronously(on: executor)
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
            var finishedOne = false
            while let message = curl_multi_info_read(multi, &remaining) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                let code = cachechain_msg_result(message)
                remove(UInt(bitPattern: easy))?.complete(code: code)
                finishedOne = true
            }
            if finishedOne && transfers.isEmpty { spinForNextCommand() }
            // Finishing a transfer may have resumed a task that prefers this executor: run it before waiting.
            isParked.store(true, ordering: .sequentiallyConsistent)
            if commands.isEmpty {
                var ready: Int32 = 0
                curl_multi_poll(multi, nil, 0, 1000, &ready)
            }
            isParked.store(false, ordering: .sequentiallyConsistent)
        }
        for command in commands.close() {
            switch command {
            case .add(let transfer):
                transfer.finish(.failure(CacheChainError(.cancelled, "the transport was shut down", request: transfer.request)))
            case .run(let job):
                globalConcurrentExecutor.enqueue(ExecutorJob(job))
            case .cancel, .resume, .shutdown:
                break
            }
        }
        // A later thread may get this thread's id (glibc reuses thread stacks): it is not the loop thread.
        loopThread.store(0, ordering: .relaxed)
        curl_multi_cleanup(multi)
        easyHandles.close()
        let waiters = ending.withLock { state in
            state.hasEnded = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Looks for a command for up to ``idleSpin``, yielding the core between looks (see there); returns at the
    /// first one, or when the time is up.
    private func spinForNextCommand() {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: Self.idleSpin)
        while commands.isEmpty && clock.now < deadline {
            sched_yield()
        }
    }
}
