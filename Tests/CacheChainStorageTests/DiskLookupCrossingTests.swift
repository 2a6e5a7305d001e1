import CacheChainCore
@testable import CacheChainDiskStorage
import CacheChainStorage
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// Issue 42.4: a lookup of small entries is bounded work and runs on the caller's thread, crossing to the storage's
/// queue neither there nor back; what is not bounded (a body over 64 KiB, a damaged entry) still crosses.
@Suite("DiskStorage lookups on the caller's thread")
struct DiskLookupCrossingTests {
    @Test("hits and misses of small entries cross no thread; a large body's hit and a damaged entry's lookup do")
    func crossings() async throws {
        let directory = TemporaryDirectory("crossings")
        let storage = try DiskStorage(directory: directory.path, capacity: 64 << 20)
        let small = StorageConformanceSuite.makeEntry(path: "/small", body: PipelineBody([UInt8](repeating: 1, count: 1024)))
        let medium = StorageConformanceSuite.makeEntry(path: "/medium", body: PipelineBody([UInt8](repeating: 2, count: 40 << 10)))
        let large = StorageConformanceSuite.makeEntry(path: "/large", body: PipelineBody([UInt8](repeating: 3, count: 200 << 10)))
        for entry in [small, medium, large] { try await storage.store(entry) }

        let before = storage.io.crossingCount
        for _ in 0..<10 {
            #expect(try await storage.entries(for: small.key).first?.cached.body.collect().count == 1024)
            #expect(try await storage.entries(for: medium.key, matching: HTTPRequest(method: .get, scheme: "http", authority: "origin.test", path: "/medium")).count == 1)
            #expect(try await storage.entries(for: CacheKey(method: "GET", scheme: "http", authority: "origin.test", path: "/absent")).isEmpty)
        }
        #expect(storage.io.crossingCount == before, "30 lookups of small entries and misses crossed to the storage's queue")

        #expect(try await storage.entries(for: large.key).first?.cached.body.collect().count == 200 << 10)
        #expect(storage.io.crossingCount == before + 1, "a body over 64 KiB is read on the storage's queue")

        // A damaged entry: the caller's thread gives up, the storage's queue removes it and reports the miss.
        let rows = try await storage.io.run { () throws(CacheChainError) in try storage.index.lookup(key: small.key.stringValue) }
        let row = try #require(rows.first)
        try await storage.io.run { () throws(CacheChainError) in
            try storage.index.database.execute("UPDATE entries SET checksum = \(Int64(bitPattern: row.checksum &+ 1)) WHERE id = \(row.id)")
        }
        let crossingsBeforeDamage = storage.io.crossingCount
        await #expect(throws: CacheChainError.self) { _ = try await storage.entries(for: small.key) }
        #expect(storage.io.crossingCount > crossingsBeforeDamage)
        #expect(try await storage.entries(for: small.key).isEmpty, "the damaged entry was removed")
    }
}
