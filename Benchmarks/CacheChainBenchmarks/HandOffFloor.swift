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

    /// Ends the loop: the flag is set before the wake-up, so the woken thread sees it and frees the multi handle.
    func stop() {
        stopped.store(true, ordering: .releasing)
        curl_multi_wakeup(multi)
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
