import CacheChainCore
@testable import CacheChainEncryption
import CacheChainDiskStorage
import CacheChainStorage
import CacheChainTesting
import Foundation
import Testing

/// Large bodies are sealed and opened segment by segment through spool files, never whole in memory.
@Suite("Large bodies: envelopes and decrypted bodies spooled to files above the in-memory limit")
struct LargeBodyTests {
    static let size = 12 << 20 + 12_345

    /// A file-backed body of `size` bytes with a position-dependent pattern, as a spooled download is.
    static func largeBody(in directory: String) throws -> PipelineBody {
        let writer = try BodyFileWriter(directory: directory)
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var written = 0
        while written < size {
            let count = min(chunk.count, size - written)
            for index in 0..<count { chunk[index] = UInt8(truncatingIfNeeded: (written + index) &* 31 >> 3) }
            try writer.append(Array(chunk[0..<count]))
            written += count
        }
        return try writer.finish()
    }

    /// Whether a body holds exactly the pattern of ``largeBody(in:)``, read in chunks.
    static func matchesPattern(_ body: PipelineBody) throws -> Bool {
        var position = 0, matches = true
        try body.forEachChunk(maximumSize: 1 << 20) { chunk in
            for byte in chunk where matches {
                matches = byte == UInt8(truncatingIfNeeded: position &* 31 >> 3)
                position += 1
            }
        }
        return matches && position == size
    }

    /// The names of the files in a directory.
    static func files(in directory: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    }

    /// How many files in `directory` this process holds open (spool files have no name: `<directory>/#… (deleted)`).
    static func openFiles(in directory: String) -> Int {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.filter { name in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"))?.hasPrefix(directory + "/") == true
        }.count
    }

    @Test("over memory: the sealed envelope and the opened body are file-backed; the bytes round-trip; spool files go with the bodies")
    func spooledOverMemory() async throws {
        let spool = TemporaryDirectory("spool")
        let source = TemporaryDirectory("source")
        let wrapped = MemoryStorage(capacity: 1 << 30)
        let storage = EncryptedStorage(
            wrapping: wrapped, keys: InMemoryKeyProvider(key: try .random()), spoolDirectory: spool.path, inMemoryBodyLimit: 1 << 20
        )
        var entry = markedEntry(path: "/large")
        entry.cached.body = try Self.largeBody(in: source.path)
        try await storage.store(entry)
        entry.cached.body = PipelineBody([])   // drop the source body: only the cache's copies remain

        // A memory backend keeps what it is given in memory (that is its job): the envelope's spool file was
        // read into it and deleted.
        let sealed = try #require(try await sealedEntries(storage).first)
        #expect(sealed.cached.body.count > Self.size)
        #expect(Self.files(in: spool.path).isEmpty)

        do {
            let opened = try #require(try await storage.entries(for: entry.key).first)
            #expect(opened.cached.body.file != nil, "the decrypted body is file-backed")
            #expect(try Self.matchesPattern(opened.cached.body))
            #expect(Self.files(in: spool.path).isEmpty, "the opened body's file has no name")
            #expect(Self.openFiles(in: spool.path) == 1, "the opened body's file")
        }
        #expect(Self.openFiles(in: spool.path) == 0, "the opened body's file is freed with the body")
    }

    @Test("sealing writes a large envelope to a spool file segment by segment")
    func sealedToFile() throws {
        let spool = TemporaryDirectory("spool")
        let storage = EncryptedStorage(
            wrapping: MemoryStorage(capacity: 0), keys: InMemoryKeyProvider(key: try .random()), spoolDirectory: spool.path,
            inMemoryBodyLimit: 1 << 20
        )
        var entry = markedEntry(path: "/large")
        entry.cached.body = try Self.largeBody(in: spool.path)
        let key = try #require(storage.keyProvider.currentKey)
        let sealed = try storage.seal(entry, with: key)
        #expect(sealed.cached.body.file != nil, "the envelope was written to a spool file, not an array")
        #expect(sealed.cached.body.count > Self.size)
        let opened = try storage.open(sealed)
        #expect(try Self.matchesPattern(opened.cached.body))
        let smallSealed = try storage.seal(markedEntry(path: "/small", bodySize: 2000), with: key)
        #expect(smallSealed.cached.body.file == nil, "a small envelope stays in memory")
    }

    @Test("over disk: a large entry round-trips; a small one stays in memory; a truncated large envelope is a miss and leaves no spool file")
    func overDisk() async throws {
        let spool = TemporaryDirectory("spool")
        let directory = TemporaryDirectory("disk")
        let disk = try DiskStorage(directory: directory.path, capacity: 1 << 30)
        let storage = EncryptedStorage(
            wrapping: disk, keys: InMemoryKeyProvider(key: try .random()), spoolDirectory: spool.path, inMemoryBodyLimit: 1 << 20
        )
        var large = markedEntry(path: "/large")
        large.cached.body = try Self.largeBody(in: spool.path)
        try await storage.store(large)
        large.cached.body = PipelineBody([])
        let small = markedEntry(path: "/small", bodySize: 2000)
        try await storage.store(small)
        #expect(Self.openFiles(in: spool.path) == 0, "the stored envelope's spool file is gone once the disk has its copy")

        let openedSmall = try #require(try await storage.entries(for: small.key).first)
        #expect(openedSmall.cached.body.file == nil)
        #expect(openedSmall == small)
        do {
            let openedLarge = try #require(try await storage.entries(for: large.key).first)
            #expect(try Self.matchesPattern(openedLarge.cached.body))
        }

        // Truncate the large entry's file on disk: the next lookup fails closed, and no spool file is left.
        let bodyFiles = try #require(FileManager.default.enumerator(atPath: directory.path)).compactMap { $0 as? String }
            .map { directory.path + "/" + $0 }
            .filter { ((try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0) > Self.size }
        let file = try #require(bodyFiles.first)
        let handle = try #require(FileHandle(forUpdatingAtPath: file))
        try handle.truncate(atOffset: UInt64(Self.size / 2))
        try handle.close()
        await #expect(throws: CacheChainError.self) { try await storage.entries(for: large.key) }
        #expect(try await storage.entries(for: large.key).isEmpty, "the damaged entry was deleted")
        #expect(Self.openFiles(in: spool.path) == 0, "the partly decrypted body's spool file was freed")
    }
}
