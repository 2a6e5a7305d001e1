import CacheChainCore
@testable import CacheChainDiskStorage
import CacheChainStorage
import CacheChainTesting
import Foundation
import Testing

/// A disk hit reads and hashes its entry file in one pass, chunk by chunk (issue 29.3): every chunk is still
/// covered by the checksum, whether the body is returned in memory or as a region of the file.
@Suite("DiskStorage's single-pass checked read")
struct DiskSinglePassReadTests {
    /// Four whole chunks and a partial one.
    private static let bodyLength = 4 * DiskEntryFile.readChunkSize + 1_000

    @Test(
        "a byte flipped in any one chunk of the body is detected: a miss with integrity-check-failed",
        arguments: [true, false]
    )
    func flippedByteInEveryChunk(inMemory: Bool) async throws {
        let directory = TemporaryDirectory("single-pass")
        let storage = try DiskStorage(configuration: .init(
            directory: directory.path, capacity: 64 << 20, inMemoryBodyLimit: inMemory ? 1 << 20 : 16 << 10,
            orphanGracePeriod: .zero
        ))
        let bytes = (0..<Self.bodyLength).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
        let entry = StorageConformanceSuite.makeEntry(path: "/single-pass", body: PipelineBody(bytes))
        let chunks = (Self.bodyLength + DiskEntryFile.readChunkSize - 1) / DiskEntryFile.readChunkSize
        for chunk in 0..<chunks {
            try await storage.store(entry)
            let file = try #require(try entryFiles(directory.path).first)
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: file))
            let size = try handle.seekToEnd()
            // The body is the file's tail; flip one byte in the middle of this chunk of it.
            let withinBody = min(chunk * DiskEntryFile.readChunkSize + DiskEntryFile.readChunkSize / 2, Self.bodyLength - 1)
            let offset = size - UInt64(Self.bodyLength) + UInt64(withinBody)
            try handle.seek(toOffset: offset)
            let byte = try #require(try handle.read(upToCount: 1)?.first)
            try handle.seek(toOffset: offset)
            try handle.write(contentsOf: [byte ^ 0x01])
            try handle.close()
            do throws(CacheChainError) {
                let found = try await storage.entries(for: entry.key)
                Issue.record("chunk \(chunk): the damaged entry was served (\(found.count) variants)")
            } catch {
                #expect(error.code == .integrityCheckFailed, "chunk \(chunk)")
            }
            #expect(try await storage.entries(for: entry.key).isEmpty, "chunk \(chunk): the damaged entry was removed")
        }
        // Undamaged, the same entry reads back exactly.
        try await storage.store(entry)
        let found = try await storage.entries(for: entry.key)
        #expect(try found.first?.cached.body.collect() == bytes)
    }
}
