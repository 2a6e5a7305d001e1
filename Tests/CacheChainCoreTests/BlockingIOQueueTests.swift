import CacheChainCore
import CacheChainTesting
import Dispatch
import Foundation
import Testing

/// `BlockingIOQueue`: blocking work off the cooperative pool, one piece at a time, in order, its result or
/// typed error delivered to the suspended caller.
@Suite("BlockingIOQueue: a backend's own queue for blocking calls")
struct BlockingIOQueueTests {
    private struct Refused: Error, Equatable { let code: Int }

    @Test("a typed error thrown by the work reaches the caller as it was thrown")
    func passesErrorsOn() async {
        let queue = BlockingIOQueue(label: "cachechain.test")
        await #expect(throws: Refused(code: 7)) {
            try await queue.run { () throws(Refused) -> Int in throw Refused(code: 7) }
        }
    }

    @Test("calls from eight tasks never overlap and each task's calls run in its order")
    func serialAndOrdered() async {
        let queue = BlockingIOQueue(label: "cachechain.test")
        let running = LockedValue(0)
        let overlaps = LockedValue(0)
        let seen = LockedValue([Int: [Int]]())
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for step in 0..<200 {
                        await queue.run {
                            if running.withLock({ $0 += 1; return $0 }) > 1 { overlaps.withLock { $0 += 1 } }
                            seen.withLock { $0[task, default: []].append(step) }
                            running.withLock { $0 -= 1 }
                        }
                    }
                }
            }
        }
        #expect(overlaps.withLock { $0 } == 0)
        #expect(seen.withLock { $0 }.values.allSatisfy { $0 == Array(0..<200) })
        #expect(seen.withLock { $0 }.count == 8)
    }

    @Test("long work suspends its caller, leaves the cooperative pool free, and still delivers its result")
    func longWorkSuspendsTheCaller() async throws {
        let queue = BlockingIOQueue(label: "cachechain.test")
        let release = DispatchSemaphore(value: 0)
        let started = LockedValue(false)
        let call = Task {
            await queue.run { () -> String in
                started.withLock { $0 = true }
                release.wait()
                return "done"
            }
        }
        try await waitUntil("the work has started") { started.withLock { $0 } }
        // More short tasks than the pool has threads run while the work blocks its own thread.
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<(4 * ProcessInfo.processInfo.activeProcessorCount) {
                group.addTask { await Task.yield() }
            }
        }
        release.signal()
        #expect(await call.value == "done")
    }
}
