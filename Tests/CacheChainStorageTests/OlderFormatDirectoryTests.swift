import CacheChainCore
import CacheChainDiskStorage
import CacheChainTesting
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// A cache directory written by the build before the shared entry codec (format 4, `Fixtures/DiskFormat4`:
/// an inline entry and one in an entry file) is emptied when opened, with an event saying why; nothing of it
/// is read as the current format.
@Suite("DiskStorage: a directory of the previous format")
struct OlderFormatDirectoryTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/DiskFormat4").path

    static func fixtureEntry(_ path: String) -> CacheKey {
        CacheKey(HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: path))
    }

    @Test("format 4 written by the previous build: its folder is removed, a storageError event names it, lookups miss")
    func formatFourRemoved() async throws {
        let directory = TemporaryDirectory("older-format")
        let cache = directory.path + "/cache"
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: cache)
        #expect(try String(contentsOfFile: cache + "/cachechain-format", encoding: .utf8) == "4\n")
        #expect(FileManager.default.fileExists(atPath: cache + "/v4/index.sqlite"))
        let entryFiles = try FileManager.default.subpathsOfDirectory(atPath: cache + "/v4").filter { $0.contains(".") && !$0.contains("sqlite") }
        #expect(entryFiles.count == 1, "the fixture holds one entry file: \(entryFiles)")

        let events = Mutex<[CacheEvent]>([])
        let storage = try DiskStorage(configuration: .init(
            directory: cache, events: CacheEventSink { event in events.withLock { $0.append(event) } }
        ))
        #expect(!FileManager.default.fileExists(atPath: cache + "/v4"))
        #expect(try String(contentsOfFile: cache + "/cachechain-format", encoding: .utf8) == "\(DiskStorage.formatVersion)\n")
        let reported = events.withLock { $0 }
        #expect(reported.map(\.kind) == [.storageError])
        #expect(reported.first?.reasons == ["older-format-removed", "format 4"])
        #expect(try await storage.entries(for: Self.fixtureEntry("/inline")).isEmpty)
        #expect(try await storage.entries(for: Self.fixtureEntry("/file")).isEmpty)
        #expect(await storage.usage().entryCount == 0)

        let fresh = StorageConformanceSuite.makeEntry(path: "/after-upgrade")
        try await storage.store(fresh)
        #expect(try await storage.entries(for: fresh.key) == [fresh])
        #expect(try await storage.checkIntegrity().isSound)
    }

    @Test("opened read-only, a format-4 directory is refused with a remedy and left as it is")
    func formatFourReadOnly() throws {
        let directory = TemporaryDirectory("older-format-ro")
        let cache = directory.path + "/cache"
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: cache)
        let error = #expect(throws: CacheChainError.self) {
            _ = try DiskStorage(configuration: .init(directory: cache, accessMode: .readOnly))
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(FileManager.default.fileExists(atPath: cache + "/v4/index.sqlite"))
    }
}
