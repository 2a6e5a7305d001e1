import CacheChainCore
import Testing

@Suite("LockedValue: the package's lock")
struct LockedValueTests {
    private struct Refused: Error, Equatable {}

    @Test("eight tasks adding 10,000 each under the lock: no increment is lost")
    func noLostUpdates() async {
        let counter = LockedValue(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
                }
            }
        }
        #expect(counter.withLock { $0 } == 80_000)
    }

    @Test("a throwing body passes its typed error on; what it changed before throwing stays changed")
    func typedThrows() {
        let value = LockedValue([1])
        #expect(throws: Refused.self) {
            try value.withLock { (numbers) throws(Refused) in
                numbers.append(2)
                throw Refused()
            }
        }
        #expect(value.withLock { $0 } == [1, 2])
        // The lock was released on the way out: taking it again does not deadlock.
        #expect(value.withLock { $0.count } == 2)
    }
}
