@testable import CacheChainDiskStorage
@testable import CacheChainStorage
import CacheChainCore
import Testing

@Suite("Disk index slots")
struct DiskIndexSlotTests {
    @Test("the key hash is XXH64 of the key's UTF-8 bytes")
    func keyHashIsXXH64() {
        // The published XXH64 test values (seed 0).
        #expect(UInt64(bitPattern: DiskIndex.keyHash("")) == 0xEF46_DB37_51D8_E999)
        #expect(UInt64(bitPattern: DiskIndex.keyHash("a")) == 0xD24E_C4F1_A98C_6E5B)
        #expect(UInt64(bitPattern: DiskIndex.keyHash("abc")) == 0x44BC_2CF5_AD77_0999)
        #expect(DiskIndex.keyHash("GET http://a.test/1") != DiskIndex.keyHash("GET http://a.test/2"))
    }

    @Test("a key's slot range is the 4,096 ids sharing the top 52 bits of its hash, ordered for either sign")
    func slotRangeShape() {
        var signs: Set<Bool> = []
        for index in 0..<64 {
            let key = "GET http://origin.test/n/\(index)"
            let slots = DiskIndex.slotRange(forKey: key)
            #expect(slots.contains(DiskIndex.keyHash(key)))
            #expect(slots.lowerBound & 0xFFF == 0)
            #expect(slots.upperBound == slots.lowerBound + 4095)
            #expect(slots.count == 4096)
            signs.insert(slots.lowerBound < 0)
        }
        #expect(signs == [false, true], "64 keys give hashes of both signs")
    }

    @Test("variants of a key take the lowest free slots; a removed variant's slot is taken again")
    func variantsFillSlots() throws {
        let directory = TemporaryDirectory("slots")
        let index = try DiskIndex(path: directory.path + "/index.sqlite", durable: false)
        let key = "GET http://origin.test/v"
        let slots = DiskIndex.slotRange(forKey: key)
        var ids: [Int64] = []
        for variant in ["a", "b", "c"] {
            ids.append(try index.transaction { () throws(CacheChainError) in try index.insert(row(key, variant)) })
        }
        #expect(ids == [slots.lowerBound, slots.lowerBound + 1, slots.lowerBound + 2])
        #expect(try index.lookup(key: key).map(\.id).sorted() == ids)

        _ = try index.transaction { () throws(CacheChainError) in try index.deleteVariant(key: key, variant: "b") }
        #expect(try index.lookup(key: key).map(\.id).sorted() == [ids[0], ids[2]])
        let again = try index.transaction { () throws(CacheChainError) in try index.insert(row(key, "d")) }
        #expect(again == ids[1])
        #expect(try index.lookup(key: key).count == 3)
    }

    @Test("two keys sharing a slot range (a 52-bit hash collision) keep apart in lookups and deletes")
    func sharedRange() throws {
        let directory = TemporaryDirectory("slots")
        let index = try DiskIndex(path: directory.path + "/index.sqlite", durable: false)
        let shared: ClosedRange<Int64> = -4096 ... -1
        let first = "GET http://origin.test/first", second = "GET http://origin.test/second"
        try index.transaction { () throws(CacheChainError) in
            _ = try index.insert(row(first, "a"), slots: shared)
            _ = try index.insert(row(second, "a"), slots: shared)
            _ = try index.insert(row(first, "b"), slots: shared)
        }
        #expect(try index.lookup(key: first, slots: shared).map(\.id).sorted() == [-4096, -4094])
        #expect(try index.lookup(key: second, slots: shared).map(\.id) == [-4095])
        #expect(try index.lookup(key: first).isEmpty, "its own range holds none of them")

        _ = try index.transaction { () throws(CacheChainError) in try index.deleteVariant(key: second, variant: "a") }
        #expect(try index.lookup(key: first, slots: shared).count == 2)
        #expect(try index.lookup(key: second, slots: shared).isEmpty)
    }

    @Test("a full slot range is a storage-failed error naming the key; the stored variants stay")
    func fullRange() throws {
        let directory = TemporaryDirectory("slots")
        let index = try DiskIndex(path: directory.path + "/index.sqlite", durable: false)
        let tiny: ClosedRange<Int64> = 8 ... 11
        let key = "GET http://origin.test/many"
        for variant in 0..<4 {
            _ = try index.transaction { () throws(CacheChainError) in try index.insert(row(key, "\(variant)"), slots: tiny) }
        }
        #expect {
            try index.transaction { () throws(CacheChainError) in try index.insert(row(key, "4"), slots: tiny) }
        } throws: { error in
            guard let error = error as? CacheChainError else { return false }
            return error.code == .storageFailed && error.message.contains(key) && error.message.contains("4 index slots")
        }
        #expect(try index.lookup(key: key, slots: tiny).map(\.id).sorted() == [8, 9, 10, 11])
        #expect(try index.totals().count == 4)
    }

    @Test("a damaged row is removed only while unchanged: the same bytes stored again in a new file under the reused id stay")
    func deleteIfUnchangedSeesReusedSlots() throws {
        let directory = TemporaryDirectory("slots")
        let index = try DiskIndex(path: directory.path + "/index.sqlite", durable: false)
        let key = "GET http://origin.test/reused"
        var first = row(key, "a")
        first.body = nil
        first.file = "aa.0000000000000001"
        first.checksum = 42
        let id = try index.transaction { () throws(CacheChainError) in try index.insert(first) }
        var second = first
        second.file = "aa.0000000000000002"
        let reused = try index.transaction { () throws(CacheChainError) in
            #expect(try index.deleteVariant(key: key, variant: "a") == [first.file])
            return try index.insert(second)
        }
        #expect(reused == id, "the variant stored again takes the freed slot")

        let stale = try index.transaction { () throws(CacheChainError) in
            try index.deleteIfUnchanged(id: id, checksum: 42, file: first.file)
        }
        #expect(stale.isEmpty)
        #expect(try index.lookup(key: key).map(\.file) == [second.file])
        let current = try index.transaction { () throws(CacheChainError) in
            try index.deleteIfUnchanged(id: id, checksum: 42, file: second.file)
        }
        #expect(current == [second.file])
        #expect(try index.lookup(key: key).isEmpty)
    }

    private func row(_ key: String, _ variant: String) -> DiskIndex.NewRow {
        DiskIndex.NewRow(
            key: key, variant: variant, url: "http://origin.test/", storedAt: 0, lastUsed: 1, size: 10,
            bodyLength: 1, checksum: 0, meta: [1], body: [2], file: nil, tags: []
        )
    }
}
