import CacheChainCore
import Foundation
import Testing

@Suite("File-backed bodies")
struct BodyFileTests {
    let directory = NSTemporaryDirectory() + "cachechain-body-test-\(UUID().uuidString)"

    func write(_ bytes: [UInt8]) throws -> PipelineBody {
        let writer = try BodyFileWriter(directory: directory)
        try writer.append(Array(bytes.prefix(bytes.count / 2)))
        try writer.append(Array(bytes.dropFirst(bytes.count / 2)))
        #expect(writer.count == bytes.count)
        return try writer.finish()
    }

    func files() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    }

    /// This process's open descriptors of files in `directory` (unnamed ones read `<directory>/#… (deleted)`).
    func openFiles() -> Int {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.filter { name in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"))?.hasPrefix(directory + "/") == true
        }.count
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
        #expect(body == PipelineBody(bytes))
        #expect(body != PipelineBody(bytes.dropLast()))
        #expect(try body.loadedIntoMemory().inMemoryBytes == bytes)
        #expect("\(body)".contains("\(bytes.count) bytes"))
    }

    @Test("the spool file never has a name; it is open while a body refers to it and freed when the last one is released or at discard")
    func lifetime() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let body = try write([1, 2, 3])
            let copy = body
            #expect(files().isEmpty, "nothing another process could open, or a crash could leave behind")
            #expect(openFiles() == 1)
            #expect(try copy.collect() == [1, 2, 3])
        }
        #expect(openFiles() == 0)
        let writer = try BodyFileWriter(directory: directory)
        try writer.append([9])
        #expect(files().isEmpty && openFiles() == 1)
        writer.discard()
        #expect(openFiles() == 0)
        #expect(throws: CacheChainError.self) { try writer.append([1]) }
        var status = stat()
        #expect(stat(directory, &status) == 0 && status.st_mode & 0o777 == 0o700, "a missing spool directory is created 0700")
    }

    @Test("a spool directory another user owns, or others can write without the sticky bit, is refused; one like /tmp is fine")
    func spoolDirectoryOwnership() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/theirs", withIntermediateDirectories: true)
        if geteuid() == 0 {
            #expect(chown(directory + "/theirs", 65534, 65534) == 0)
            let foreign = #expect(throws: CacheChainError.self) { try BodyFileWriter(directory: directory + "/theirs") }
            #expect(foreign?.message.contains("belongs to uid 65534") == true)
        }
        try FileManager.default.createDirectory(atPath: directory + "/open", withIntermediateDirectories: true)
        #expect(chmod(directory + "/open", 0o777) == 0)
        let open = #expect(throws: CacheChainError.self) { try BodyFileWriter(directory: directory + "/open") }
        #expect(open?.message.contains("without the sticky bit") == true)
        #expect(chmod(directory + "/open", 0o1777) == 0)
        let body = try BodyFileWriter(directory: directory + "/open")
        try body.append([1])
        #expect(try body.finish().collect() == [1])
    }

    @Test("named leftovers of a killed process, and of earlier releases, are swept when older than a minute; a batch peer's body files are not")
    func sweepsLeftovers() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/cachechain-spool", withIntermediateDirectories: true)
        let names = [
            "cachechain-spool-old", "cachechain-spool-new", "other-old", "cachechain-body-Ab12Cd",
            "cachechain-body-7-0f7c2a5e-3d1b-4c0e-9a4f-2b8d6e1f0a93", "cachechain-spool/cachechain-body-Xy34Zw",
        ]
        for name in names {
            try Data("plaintext".utf8).write(to: URL(fileURLWithPath: "\(directory)/\(name)"))
        }
        let old = Date().addingTimeInterval(-120)
        for name in names where name != "cachechain-spool-new" {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: "\(directory)/\(name)")
        }
        BodyFileWriter.sweepLeftovers(in: directory)
        #expect(Set(files()) == ["cachechain-spool-new", "other-old", "cachechain-body-7-0f7c2a5e-3d1b-4c0e-9a4f-2b8d6e1f0a93"])
    }

    @Test("a file truncated while in use is a read error, never a short body")
    func truncatedWhileInUse() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/named"
        try Data(repeating: 7, count: 10_000).write(to: URL(fileURLWithPath: path))
        let body = PipelineBody(file: try BodyFile(path: path))
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
        #expect(try PipelineBody(file: region).collect() == [2, 3])
        #expect(throws: CacheChainError.self) { try BodyFile(path: path, offset: 1, length: 5) }
    }

    @Test("collect(upTo:) refuses a body above the limit instead of returning part of it")
    func collectLimit() throws {
        let body = PipelineBody([1, 2, 3, 4])
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
