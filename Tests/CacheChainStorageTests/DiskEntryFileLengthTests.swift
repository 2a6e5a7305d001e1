import CacheChainCore
import CacheChainTesting
@testable import CacheChainDiskStorage
import CacheChainStorage
import Foundation
import Testing

/// The lengths `DiskEntryFile.read` checks a file against come from the entry's index row, which a damaged or
/// tampered index can set to anything (found by the `disk-entry` fuzz target: a body length near `Int.max`
/// overflowed the expected file size and trapped).
@Suite("Entry file: impossible lengths from the index row")
struct DiskEntryFileLengthTests {
    @Test(
        "a negative or overflowing metadata or body length is a typed integrity error, never a trap",
        arguments: [(0, Int.max - 2), (0, Int.max), (Int.max, Int.max), (0, -5), (-1, 10), (Int.min, 0), (16, Int.max - 40)]
    )
    func impossibleLengths(metaLength: Int, bodyLength: Int) throws {
        let directory = TemporaryDirectory("entry-lengths")
        let path = directory.path + "/entry"
        let entry = StorageConformanceSuite.makeEntry(path: "/lengths", body: "body")
        let file = DiskFuzzing.seedEntryFile(entry)
        try Data(file).write(to: URL(fileURLWithPath: path))
        do {
            _ = try DiskEntryFile.read(path: path, metaLength: metaLength, bodyLength: bodyLength, checksum: 0, inMemoryLimit: 1 << 16)
            Issue.record("lengths \(metaLength), \(bodyLength) were accepted")
        } catch {
            #expect(error.code == .integrityCheckFailed, "\(error)")
            #expect(error.message.contains("impossible length"), "\(error.message)")
        }
    }
}
