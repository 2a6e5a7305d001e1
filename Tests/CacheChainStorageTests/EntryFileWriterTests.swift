import CacheChainCore
import CacheChainTesting
@testable import CacheChainDiskStorage
@testable import CacheChainStorage
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("Entry file writer (large page-cache folios)")
struct EntryFileWriterTests {
    /// A new empty file in a fresh directory, open for writing (the directory lives as long as the value).
    private func newFile() throws -> (directory: TemporaryDirectory, path: String, descriptor: Int32) {
        let directory = TemporaryDirectory("writer")
        let path = directory.path + "/entry"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        try #require(descriptor >= 0)
        return (directory, path, descriptor)
    }

    private func fileSize(_ descriptor: Int32) -> Int {
        var status = stat()
        return fstat(descriptor, &status) == 0 ? Int(status.st_size) : -1
    }

    @Test("pieces of uneven sizes come out byte for byte, and the file only grows by whole slices until finish")
    func stagedWritesStayAligned() throws {
        let file = try newFile()
        let (path, descriptor) = (file.path, file.descriptor)
        defer {
            close(descriptor)
            withExtendedLifetime(file.directory) {}
        }
        let slice = EntryFileWriter.sliceSize
        let sizes = [277, 1, slice - 3, 7, 2 * slice + 5, 0, slice, 1234] + Array(repeating: 4_000, count: 150)
        var expected: [UInt8] = []
        var writer = EntryFileWriter(descriptor: descriptor, path: path)
        for (number, size) in sizes.enumerated() {
            let piece = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ number) }
            try piece.withUnsafeBytes { try writer.append($0) }
            expected += piece
            let written = fileSize(descriptor)
            #expect(written % slice == 0, "after piece \(number) the file holds \(written) bytes")
            #expect(written == expected.count / slice * slice)
        }
        try writer.finish()
        #expect(fileSize(descriptor) == expected.count)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(expected))
    }

    @Test("writeAll sends a prefix and a body in one call, and names the file when writing fails")
    func vectorWrite() throws {
        let file = try newFile()
        let (path, descriptor) = (file.path, file.descriptor)
        defer { withExtendedLifetime(file.directory) {} }
        let prefix = [UInt8](repeating: 1, count: 300)
        let body = (0..<(1 << 20) + 3).map { UInt8(truncatingIfNeeded: $0) }
        try prefix.withUnsafeBytes { one in try body.withUnsafeBytes { two in try EntryFileWriter.writeAll(descriptor, one, two, path: path) } }
        close(descriptor)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(prefix + body))

        let readOnly = open(path, O_RDONLY | O_CLOEXEC)
        try #require(readOnly >= 0)
        defer { close(readOnly) }
        #expect {
            try prefix.withUnsafeBytes { one in try EntryFileWriter.writeAll(readOnly, one, UnsafeRawBufferPointer(start: nil, count: 0), path: path) }
        } throws: { error in
            guard let failure = error as? CacheChainError else { return false }
            return failure.code == .storageFailed && failure.message.contains(path)
        }
    }

    @Test("entries written from memory and from a file-backed body of odd sizes read back identical through DiskStorage")
    func roundTrips() async throws {
        let directory = TemporaryDirectory("writer")
        let storage = try DiskStorage(configuration: .init(directory: directory.path + "/cache", inlineBodyLimit: 0))
        for size in [1, EntryFileWriter.sliceSize - 40, EntryFileWriter.sliceSize * 2 + 77] {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ size) }
            let spool = try BodyFileWriter(directory: directory.path + "/spool")
            try spool.append(bytes)
            let fromFile = StorageConformanceSuite.makeEntry(path: "/file/\(size)", body: try spool.finish())
            let fromMemory = StorageConformanceSuite.makeEntry(path: "/memory/\(size)", body: PipelineBody(bytes))
            try await storage.store(fromFile)
            try await storage.store(fromMemory)
            for key in [fromFile.key, fromMemory.key] {
                let body = try #require(try await storage.entries(for: key).first?.cached.body)
                #expect(try body.collect() == bytes, "\(key.url) with \(size) bytes")
            }
        }
    }
}
