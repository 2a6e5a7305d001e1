import CacheChainCore
import CacheChainTesting
import Dispatch
import Foundation
import Testing

/// `BlockingIOQueue`: blocking work on a thread of the queue's own, one piece at a time, with short work
/// answered without parking the caller and long work suspending it; the thread parks when idle and ends with
/// the queue.
@Suite("BlockingIOQueue: a backend's own thread for blocking calls")
struct BlockingIOQueueTests {
    private struct Refused: Error, Equatable { let code: Int }

    /// The kernel's names and states of this process's threads (`/proc/self/task/*/{comm,stat}`).
    private static func threads(named name: String) -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { task in
            let comm = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            guard comm.trimmingCharacters(in: .whitespacesAndNewlines) == name else { return nil }
            let stat = (try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8)) ?? ""
            // The state is the first field after the parenthesised name.
            guard let close = stat.lastIndex(of: ")") else { return "?" }
            return String(stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).prefix(1))
        }
    }

    private static func uniqueLabel() -> String {
        "bioq-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
    }

    @Test("work runs on the queue's own named thread, the same one for every call, and returns its value")
    func runsOnItsOwnThread() async throws {
        let label = Self.uniqueLabel()
        let queue = BlockingIOQueue(label: label)
        var names: Set<String> = []
        for index in 0..<50 {
            let (name, doubled) = await queue.run { () -> (String, Int) in
                let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
                return (comm.trimmingCharacters(in: .whitespacesAndNewlines), index * 2)
            }
            #expect(doubled == index * 2)
            names.insert(name)
        }
        #expect(names == [label])
        #expect(Self.threads(named: label).count == 1)
    }

    @Test("a typed error thrown by the work reaches the caller as it was thrown")
    func passesErrorsOn() async {
        let queue = BlockingIOQueue(label: Self.uniqueLabel())
        await #expect(throws: Refused(code: 7)) {
            try await queue.run { () throws(Refused) -> Int in throw Refused(code: 7) }
        }
    }

    @Test("calls from eight tasks never overlap and each task's calls run in its order")
    func serialAndOrdered() async {
        let queue = BlockingIOQueue(label: Self.uniqueLabel())
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
        let queue = BlockingIOQueue(label: Self.uniqueLabel())
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

    @Test("an idle queue's thread parks (sleeps, spending no CPU) and ends when the queue is released")
    func idleThreadParksAndEnds() async throws {
        let label = Self.uniqueLabel()
        var queue: BlockingIOQueue? = BlockingIOQueue(label: label)
        #expect(await queue?.run { 1 } == 1)
        try await waitUntil("the idle thread sleeps") { Self.threads(named: label) == ["S"] }
        #expect(await queue?.run { 2 } == 2)
        queue = nil
        try await waitUntil("the thread has ended") { Self.threads(named: label).isEmpty }
    }
}
