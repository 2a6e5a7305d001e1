import CacheChainCore
import Testing

@Suite("BoundedMemo")
struct BoundedMemoTests {
    @Test("a bounded memo forgets its oldest insertion first and never exceeds its capacity")
    func boundedMemo() {
        var memo = BoundedMemo<Int, String>(capacity: 3)
        for value in 0..<3 { memo.insert("v\(value)", for: value) }
        memo.insert("v0 again", for: 0)
        #expect(memo.count == 3)
        #expect(memo.value(for: 0) == "v0 again")
        memo.insert("v3", for: 3)
        #expect(memo.count == 3)
        #expect(memo.value(for: 0) == nil)
        #expect(memo.value(for: 1) == "v1")
        memo.insert("v4", for: 4)
        #expect(memo.value(for: 1) == nil)
        #expect(memo.value(for: 2) == "v2")
        #expect(memo.value(for: 4) == "v4")
    }
}
