import CacheChainCore
@testable import CacheChainEncryption
import CacheChainStorage
import CacheChainTesting
import Testing

@Suite("Derived names and subkeys remembered with their key")
struct DerivedKeyCacheTests {
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

    @Test("a store and a hit remember one name and one subkey; another instance of the same key derives the same ones and opens the entry")
    func rememberedAndEquivalent() async throws {
        let bytes = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 11) }
        let first = try EncryptionKey(bytes: bytes, id: "k")
        let inner = MemoryStorage(capacity: 8 << 20)
        let storage = EncryptedStorage(wrapping: inner, keys: InMemoryKeyProvider(key: first))
        let entry = markedEntry(path: "/remembered")
        try await storage.store(entry)
        #expect(try await storage.entries(for: entry.key) == [entry])
        #expect(try await storage.entries(for: entry.key) == [entry])
        #expect(first.derived.counts.names == 1)
        #expect(first.derived.counts.subkeys == 1)

        let second = try EncryptionKey(bytes: bytes, id: "k")
        #expect(second.derived.counts.names == 0)
        let reopened = EncryptedStorage(wrapping: inner, keys: InMemoryKeyProvider(key: second))
        #expect(try await reopened.entries(for: entry.key) == [entry])
        #expect(second.derived.counts.names == 1)
        #expect(second.derived.counts.subkeys == 1)
    }

    @Test("memoized subkeys never open an entry for a key that is not provided any more")
    func destroyedKeyStillRefuses() async throws {
        let key = try EncryptionKey.random(id: "shredded")
        let keys = InMemoryKeyProvider(key: key)
        let storage = EncryptedStorage(wrapping: MemoryStorage(capacity: 8 << 20), keys: keys)
        let entry = markedEntry(path: "/shredded")
        try await storage.store(entry)
        #expect(try await storage.entries(for: entry.key).count == 1)
        #expect(key.derived.counts.subkeys == 1)
        #expect(keys.destroyKey(withID: "shredded"))
        #expect(try await storage.entries(for: entry.key).isEmpty)
    }
}
