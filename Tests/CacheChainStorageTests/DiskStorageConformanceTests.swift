import CacheChainCore
import CacheChainDiskStorage
import CacheChainStorage
import CacheChainTesting
import Foundation
import Testing

/// Reopens a ``DiskStorage`` on the same directory with the same configuration.
let reopenDisk: StorageConformanceSuite.Reopen = { storage in
    let disk = try #require(storage as? DiskStorage)
    return try DiskStorage(configuration: disk.configuration)
}

@Suite("DiskStorage conformance")
struct DiskStorageConformanceTests {
    @Test("passes the storage conformance suite", arguments: StorageConformanceSuite.checks.map(\.name))
    func conformance(check: String) async throws {
        let directory = TemporaryDirectory()
        let suite = StorageConformanceSuite(
            makeStorage: { try DiskStorage(directory: directory.path + "/\(UUID().uuidString)", capacity: 64 << 20) },
            reopen: reopenDisk
        )
        let selected = try #require(StorageConformanceSuite.checks.first { $0.name == check })
        try await suite.run(selected)
    }

    @Test("passes the suite with every body in an entry file and served as a file region",
          arguments: StorageConformanceSuite.checks.map(\.name))
    func conformanceFileBodies(check: String) async throws {
        let directory = TemporaryDirectory()
        let suite = StorageConformanceSuite(
            makeStorage: {
                try DiskStorage(configuration: DiskStorage.Configuration(
                    directory: directory.path + "/\(UUID().uuidString)", capacity: 64 << 20, inlineBodyLimit: 0, inMemoryBodyLimit: 0
                ))
            },
            reopen: reopenDisk
        )
        let selected = try #require(StorageConformanceSuite.checks.first { $0.name == check })
        try await suite.run(selected)
    }
}
