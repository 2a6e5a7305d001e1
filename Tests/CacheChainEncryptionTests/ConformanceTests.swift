import CacheChainCore
@testable import CacheChainEncryption
import CacheChainDiskStorage
import CacheChainStorage
import CacheChainTesting
import Foundation
import Testing

@Suite("EncryptedStorage conformance")
struct ConformanceTests {
    @Test("EncryptedStorage(MemoryStorage) passes the storage conformance suite", arguments: StorageConformanceSuite.checks.map(\.name))
    func overMemory(check: String) async throws {
        let suite = StorageConformanceSuite(makeStorage: {
            EncryptedStorage(wrapping: MemoryStorage(capacity: 64 << 20), keys: InMemoryKeyProvider(key: try .random()))
        })
        try await suite.run(try #require(StorageConformanceSuite.checks.first { $0.name == check }))
    }

    @Test("EncryptedStorage(MemoryStorage) passes with 1 KiB segments (many segments per body)",
          arguments: StorageConformanceSuite.checks.map(\.name))
    func smallSegments(check: String) async throws {
        let suite = StorageConformanceSuite(makeStorage: {
            EncryptedStorage(
                wrapping: MemoryStorage(capacity: 64 << 20), keys: InMemoryKeyProvider(key: try .random()), events: .none, segmentSize: 1024
            )
        })
        try await suite.run(try #require(StorageConformanceSuite.checks.first { $0.name == check }))
    }

    @Test("EncryptedStorage(DiskStorage) passes the suite, reopening included", arguments: StorageConformanceSuite.checks.map(\.name))
    func overDisk(check: String) async throws {
        let directory = TemporaryDirectory()
        let keys = InMemoryKeyProvider(key: try .random())
        let suite = StorageConformanceSuite(
            makeStorage: {
                EncryptedStorage(wrapping: try DiskStorage(directory: directory.path + "/\(UUID().uuidString)", capacity: 64 << 20), keys: keys)
            },
            reopen: { storage in
                let encrypted = try #require(storage as? EncryptedStorage)
                let disk = try #require(encrypted.wrapped as? DiskStorage)
                return EncryptedStorage(wrapping: try DiskStorage(configuration: disk.configuration), keys: encrypted.keyProvider)
            }
        )
        try await suite.run(try #require(StorageConformanceSuite.checks.first { $0.name == check }))
    }
}
