import CacheChainCore
import CacheChainTesting
import Dispatch
import Foundation
import Testing

/// `OffPoolIO`, which runs the blocking reads and writes of file-backed bodies (`PipelineBody.chunks`, `BodySpool`)
/// off Swift's cooperative pool.
@Suite("Blocking body I/O runs off the cooperative pool")
struct OffPoolIOTests {
    @Test("more blocked works than the pool has threads still leave the pool free to run the task that releases them")
    func blockedWorkLeavesThePoolFree() async throws {
        let blocked = ProcessInfo.processInfo.activeProcessorCount + 1  // the pool has one thread per core
        let release = DispatchSemaphore(value: 0)
        let started = LockedValue(0)
        let released = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<blocked {
                group.addTask {
                    try await OffPoolIO.run {
                        started.withLock { $0 += 1 }
                        // On the pool, this would hold a pool thread until the timeout (long: the whole suite shares the pool), and with every thread held
                        // the releasing task below could not run: each wait would time out (false).
                        return release.wait(timeout: .now() + 120) == .success
                    }
                }
            }
            group.addTask {
                try await waitUntil("every blocked work started") { started.withLock { $0 } == blocked }
                for _ in 0..<blocked { release.signal() }
                return true
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(released == Array(repeating: true, count: blocked + 1))
    }
}
