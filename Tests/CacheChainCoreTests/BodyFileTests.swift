import CacheChainCore
import Foundation
import Testing

@Suite("File-backed bodies")
struct BodyFileTests {
    let directory = NSTemporaryDirectory() + "cachechain-body-test-\(UUID().uuidString)"

    func write(_ bytes: [UInt8]) throws -> HTTPBody {
        let writer = try BodyFileWriter(directory: directory)
        try writer.append(Array(bytes.prefix(bytes.count / 2)))
        try writer.append(Array(bytes.dropFirst(bytes.count / 2)))
        #expect(writer.count == bytes.count)
        return try writer.finish()
    }

    func files() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    }

    @Test("a written body reads back whole, in chunks and as an async sequence, and equals the same bytes in memory")
    func roundTrip() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bytes = (0..<700_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let body = try write(bytes)
        #expect(body.file != nil)
        #expect(body.count == bytes.count)
        #expect(try body.collect() == bytes)
        var pieces: [UInt8] = []
        var largest = 0
        try body.forEachChunk(maximumSize: 64 << 10) { chunk in
            largest = max(largest, chunk.count)
            pieces.append(contentsOf: chunk)
        }
        #expect(pieces == bytes)
        #expect(largest == 64 << 10)
        var streamed: [UInt8] = []
        for try await chunk in body.chunks(maximumSize: 100_000) { streamed += chunk }
        #expect(streamed == bytes)
        #expect(body == HTTPBody(bytes))
        #expect(body != HTTPBody(bytes.dropLast()))
        #expect(try body.loadedIntoMemory().inMemoryBytes == bytes)
        #expect("\(body)".contains("\(bytes.count) bytes"))
    }

    @Test("the file is deleted when the last body referring to it is released, and discard deletes at once")
    func lifetime() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let body = try write([1, 2, 3])
            let copy = body
            #expect(files().count == 1)
            #expect(copy.count == 3)
        }
        #expect(files().isEmpty)
        let writer = try BodyFileWriter(directory: directory)
        try writer.append([9])
        #expect(files().count == 1)
        writer.discard()
        #expect(files().isEmpty)
        #expect(throws: CacheChainError.self) { try writer.append([1]) }
    }

    @Test("a file truncated while in use is a read error, never a short body")
    func truncatedWhileInUse() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let body = try write(Array(repeating: 7, count: 10_000))
        let path = try #require(body.file?.path)
        #expect(truncate(path, 100) == 0)
        let error = #expect(throws: CacheChainError.self) { try body.collect() }
        #expect(error?.code == .bodyUnreadable)
        #expect(error?.message.contains("truncated") == true)
    }

    @Test("opening a missing file, a directory, or a region past the end is a clear error")
    func openErrors() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(throws: CacheChainError.self) { try BodyFile(path: directory + "/missing") }
        try FileManager.default.createDirectory(atPath: directory + "/dir", withIntermediateDirectories: true)
        let notFile = #expect(throws: CacheChainError.self) { try BodyFile(path: directory + "/dir") }
        #expect(notFile?.message.contains("not a regular file") == true)
        let path = directory + "/small"
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
        let region = try BodyFile(path: path, offset: 1, length: 2)
        #expect(try HTTPBody(file: region).collect() == [2, 3])
        #expect(throws: CacheChainError.self) { try BodyFile(path: path, offset: 1, length: 5) }
    }

    @Test("collect(upTo:) refuses a body above the limit instead of returning part of it")
    func collectLimit() throws {
        let body = HTTPBody([1, 2, 3, 4])
        let error = #expect(throws: CacheChainError.self) { try body.collect(upTo: 3) }
        #expect(error?.code == .bodyUnreadable)
        #expect(try body.collect(upTo: 4) == [1, 2, 3, 4])
    }

    @Test("a writer in a directory that cannot exist fails with the path in the message")
    func writerErrors() throws {
        let blocker = directory + "-file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: blocker))
        defer { try? FileManager.default.removeItem(atPath: blocker) }
        let error = #expect(throws: CacheChainError.self) { try BodyFileWriter(directory: blocker + "/sub") }
        #expect(error?.code == .storageFailed)
        #expect(error?.message.contains(blocker) == true)
    }
}
