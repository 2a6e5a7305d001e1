import CacheChainCore
@testable import CacheChainEncryption
import CacheChainStorage
import CacheChainTesting
import Foundation
import Testing

@Suite("Key rotation and crypto-shredding")
struct RotationTests {
    @Test("after a rotation new writes use the new key and old entries still open")
    func rotation() async throws {
        let old = try EncryptionKey.random(id: "old")
        let keys = InMemoryKeyProvider(key: old)
        let storage = EncryptedStorage(wrapping: MemoryStorage(capacity: 8 << 20), keys: keys)
        let before = markedEntry(path: "/before")
        try await storage.store(before)
        keys.rotate(to: try .random(id: "new"))
        let after = markedEntry(path: "/after")
        try await storage.store(after)
        #expect(try await storage.entries(for: before.key) == [before])
        #expect(try await storage.entries(for: after.key) == [after])
        let ids = try await sealedEntries(storage).map { try EnvelopeCodec.header(of: $0.cached.body).keyID }
        #expect(ids.sorted() == ["new", "old"])
        #expect(Set(try await storage.keys()) == [before.key, after.key])
    }

    @Test("re-storing a variant after a rotation replaces the copy sealed with the old key")
    func replaceAcrossKeys() async throws {
        let keys = InMemoryKeyProvider(key: try .random(id: "old"))
        let storage = EncryptedStorage(wrapping: MemoryStorage(capacity: 8 << 20), keys: keys)
        try await storage.store(markedEntry(path: "/x", bodySize: 100))
        keys.rotate(to: try .random(id: "new"))
        let replacement = markedEntry(path: "/x", bodySize: 200)
        try await storage.store(replacement)
        #expect(try await storage.entries(for: replacement.key) == [replacement])
        #expect(await storage.usage().entryCount == 1)
    }

    @Test("reencryptEntries moves every entry to the current key; the old key can then be destroyed")
    func reencrypt() async throws {
        let keys = InMemoryKeyProvider(key: try .random(id: "old"))
        let storage = EncryptedStorage(wrapping: MemoryStorage(capacity: 8 << 20), keys: keys)
        let entries = (0..<5).map { markedEntry(path: "/r/\($0)") }
        for entry in entries { try await storage.store(entry) }
        keys.rotate(to: try .random(id: "new"))
        let report = try await storage.reencryptEntries()
        #expect(report == EncryptedStorage.ReencryptionReport(reencrypted: 5))
        #expect(keys.destroyKey(withID: "old"))
        for entry in entries { #expect(try await storage.entries(for: entry.key) == [entry]) }
        #expect(try await storage.reencryptEntries() == EncryptedStorage.ReencryptionReport(alreadyCurrent: 5))
    }

    @Test("removeEntriesNotSealedWithCurrentKey drops old-key entries and keeps current ones")
    func dropOld() async throws {
        let keys = InMemoryKeyProvider(key: try .random(id: "old"))
        let storage = EncryptedStorage(wrapping: MemoryStorage(capacity: 8 << 20), keys: keys)
        let old = markedEntry(path: "/old")
        try await storage.store(old)
        keys.rotate(to: try .random(id: "new"))
        let new = markedEntry(path: "/new")
        try await storage.store(new)
        try await storage.removeEntriesNotSealedWithCurrentKey()
        #expect(try await storage.entries(for: old.key).isEmpty)
        #expect(try await storage.entries(for: new.key) == [new])
    }

    @Test("destroying a key shreds its entries: lookups miss, nothing opens, and the ciphertext can be reclaimed")
    func shredding() async throws {
        let keys = InMemoryKeyProvider(key: try .random(id: "session"))
        let storage = EncryptedStorage(wrapping: MemoryStorage(capacity: 8 << 20), keys: keys)
        let entry = markedEntry()
        try await storage.store(entry)
        #expect(keys.destroyKey(withID: "session"))
        #expect(try await storage.entries(for: entry.key).isEmpty)
        #expect(try await storage.keys().isEmpty)
        // No key: nothing is stored (fail closed) until a new key arrives.
        let refused = await #expect(throws: CacheChainError.self) { try await storage.store(markedEntry(path: "/later")) }
        #expect(refused?.code == .keyUnavailable)
        // The sealed bytes are still on the backend but no provided key opens them.
        let sealed = try await sealedEntries(storage)
        #expect(sealed.count == 1)
        let opened = Result { () throws(CacheChainError) in try storage.open(sealed[0]) }
        #expect(throws: CacheChainError.self) { try opened.get() }
        keys.rotate(to: try .random(id: "next"))
        try await storage.removeUnreadableEntries()
        #expect(await storage.usage().entryCount == 0)
    }

    @Test("a wrong key finds nothing (entries are named under the key) and can reclaim the unreadable entries")
    func wrongKey() async throws {
        let inner = MemoryStorage(capacity: 8 << 20)
        let writer = EncryptedStorage(wrapping: inner, keys: InMemoryKeyProvider(key: try .random()))
        let entry = markedEntry()
        try await writer.store(entry)
        let reader = EncryptedStorage(wrapping: inner, keys: InMemoryKeyProvider(key: try .random()))
        #expect(try await reader.entries(for: entry.key).isEmpty)
        #expect(try await reader.keys().isEmpty)
        try await reader.removeUnreadableEntries()
        #expect(await inner.usage().entryCount == 0)
    }

    @Test("a wrong key under the same ID fails authentication: the lookup throws and nothing is returned")
    func wrongKeySameID() async throws {
        let inner = MemoryStorage(capacity: 8 << 20)
        let right = try EncryptionKey.random(id: "same")
        let wrong = try EncryptionKey.random(id: "same")
        let entry = markedEntry()
        try await EncryptedStorage(wrapping: inner, keys: InMemoryKeyProvider(key: right)).store(entry)
        let sealed = await inner.entries(for: inner.keys()[0])[0]
        let reader = EncryptedStorage(wrapping: inner, keys: InMemoryKeyProvider(key: wrong))
        let opened = Result { () throws(CacheChainError) in try reader.open(sealed) }
        #expect(throws: CacheChainError.self) { try opened.get() }
        if case .failure(let error) = opened { #expect(error.code == .integrityCheckFailed) }
    }
}
