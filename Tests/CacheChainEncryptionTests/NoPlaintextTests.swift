import CacheChainCore
@testable import CacheChainEncryption
import CacheChainDiskStorage
import CacheChainStorage
import CacheChainTesting
import Foundation
import Testing

@Suite("Nothing in clear reaches the wrapped backend")
struct NoPlaintextTests {
    static let markers = [Marker.host, Marker.path, Marker.header, Marker.body, Marker.tag, ConformanceTagKey.name, "Bearer", "max-age=600"]

    @Test("no inner entry's key, fields, userInfo or body holds the URL, a header value, the tag or a body marker")
    func memoryBackend() async throws {
        let storage = EncryptedStorage(wrapping: MemoryStorage(capacity: 16 << 20), keys: InMemoryKeyProvider(key: try .random()))
        let entries = [markedEntry(path: Marker.path + "/small", bodySize: 300), markedEntry(path: Marker.path + "/large", bodySize: 200_000)]
        for entry in entries { try await storage.store(entry) }
        let sealed = try await sealedEntries(storage)
        #expect(sealed.count == 2)
        for entry in sealed {
            let bytes = try exposedBytes(entry)
            for marker in Self.markers { #expect(!contains(bytes, marker), "\(marker) found in clear") }
            // The scan itself can find markers: the decrypted entry holds them.
            let opened = try storage.open(entry)
            #expect(contains(try opened.cached.body.collect(), Marker.body))
        }
    }

    @Test("no file under a DiskStorage directory (index database, entry files) holds a marker")
    func diskBackend() async throws {
        let directory = TemporaryDirectory()
        let disk = try DiskStorage(configuration: .init(directory: directory.path, capacity: 64 << 20, inlineBodyLimit: 1024))
        let storage = EncryptedStorage(wrapping: disk, keys: InMemoryKeyProvider(key: try .random()))
        let entries = [markedEntry(path: Marker.path + "/small", bodySize: 300), markedEntry(path: Marker.path + "/large", bodySize: 300_000)]
        for entry in entries { try await storage.store(entry) }
        try await disk.flush()
        var scanned = 0
        let enumerator = try #require(FileManager.default.enumerator(atPath: directory.path))
        for case let name as String in enumerator {
            let path = directory.path + "/" + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            let bytes = Array(try #require(FileManager.default.contents(atPath: path)))
            scanned += bytes.count
            for marker in Self.markers { #expect(!contains(bytes, marker), "\(marker) found in \(name)") }
        }
        #expect(scanned > 300_000)
        for entry in entries { #expect(try await storage.entries(for: entry.key) == [entry]) }
    }

    @Test("allowedInMemoryOnly entries still never reach a disk backend; they stay in the memory tier")
    func memoryOnlyPolicy() async throws {
        let directory = TemporaryDirectory()
        let disk = try DiskStorage(directory: directory.path, capacity: 16 << 20)
        var entry = markedEntry()
        entry.cached.storagePolicy = .allowedInMemoryOnly
        try await EncryptedStorage(wrapping: disk, keys: InMemoryKeyProvider(key: try .random())).store(entry)
        #expect(await disk.usage().entryCount == 0)
        let memory = MemoryStorage(capacity: 16 << 20)
        let tiered = EncryptedStorage(wrapping: TieredStorage(memory: memory, disk: disk), keys: InMemoryKeyProvider(key: try .random()))
        try await tiered.store(entry)
        #expect(await disk.usage().entryCount == 0)
        #expect(await memory.usage().entryCount == 1)
        #expect(try await tiered.entries(for: entry.key) == [entry])
    }

    @Test("purge by tag finds entries through digested userInfo names; inner names and values reveal nothing")
    func tagPurge() async throws {
        let storage = EncryptedStorage(wrapping: MemoryStorage(capacity: 16 << 20), keys: InMemoryKeyProvider(key: try .random()))
        let tagged = markedEntry(path: "/t/1")
        let other = StorageConformanceSuite.makeEntry(path: "/t/2", tag: "someone-else")
        let untagged = StorageConformanceSuite.makeEntry(path: "/t/3")
        for entry in [tagged, other, untagged] { try await storage.store(entry) }
        for sealed in try await sealedEntries(storage) {
            for name in sealed.cached.userInfo.names {
                #expect(name.hasPrefix("cachechain-tag-") && !name.contains(ConformanceTagKey.name))
                #expect(sealed.cached.userInfo.jsonText(forName: name) == "1")
            }
        }
        try await storage.removeEntries(withUserInfoNamed: ConformanceTagKey.name) { $0.cached.userInfo[ConformanceTagKey.self] == Marker.tag }
        #expect(try await storage.entries(for: tagged.key).isEmpty)
        #expect(try await storage.entries(for: other.key).count == 1)
        #expect(try await storage.entries(for: untagged.key).count == 1)
    }

    @Test("a 3 MiB body served by the disk backend as a file region decrypts chunk by chunk, byte for byte")
    func largeFileBackedBody() async throws {
        let directory = TemporaryDirectory()
        let disk = try DiskStorage(configuration: .init(directory: directory.path, capacity: 64 << 20, inlineBodyLimit: 0, inMemoryBodyLimit: 0))
        let storage = EncryptedStorage(wrapping: disk, keys: InMemoryKeyProvider(key: try .random()))
        let bytes = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) }
        let entry = StorageConformanceSuite.makeEntry(path: "/large", body: PipelineBody(bytes))
        try await storage.store(entry)
        let sealed = try await disk.entries(for: disk.keys()[0])[0]
        #expect(sealed.cached.body.file != nil)
        #expect(try await storage.entries(for: entry.key).first?.cached.body.collect() == bytes)
    }
}
