#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CacheChainCore

/// The entry file of a large body, `v<format>/<2 hex>/<SHA-256 of key and variant>.<16 hex write id>`:
/// one ``EntryCodec`` record — header (no reference; the checksum is ``EntryChecksum``, XXH3-64 of metadata
/// + body), metadata, body. A file is written once under a temporary name and renamed into place; it is
/// never modified afterwards, so a reader that opened it keeps reading the same bytes. `Docs.docc/OnDiskFormat.md` has the
/// byte layout.
enum DiskEntryFile {
    /// What damaged metadata is called in errors.
    static let metadataSubject = "a disk cache entry's metadata"

    /// Writes metadata and body (streamed, bounded memory) to a new file; returns the checksum.
    static func create(meta: [UInt8], body: PipelineBody, at path: String, sync: Bool) throws(CacheChainError) -> UInt64 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXFile.failure("creating the entry file \(path)") }
        let checksum: UInt64
        do throws(CacheChainError) {
            checksum = try writeContents(descriptor, meta: meta, body: body, path: path)
            if sync, fsync(descriptor) != 0 { throw POSIXFile.failure("syncing \(path)") }
        } catch {
            close(descriptor)
            unlink(path)
            throw error
        }
        guard close(descriptor) == 0 else {
            let error = POSIXFile.failure("closing \(path)")
            unlink(path)
            throw error
        }
        return checksum
    }

    /// Writes header placeholder, metadata and body (through ``EntryFileWriter``, which keeps the file in
    /// large page-cache folios), then the real header; returns the checksum.
    private static func writeContents(
        _ descriptor: Int32,
        meta: [UInt8],
        body: PipelineBody,
        path: String
    ) throws(CacheChainError) -> UInt64 {
        let hasher = EntryChecksum()
        hasher.update(meta)
        let opening = [UInt8](repeating: 0, count: EntryCodec.headerSize) + meta
        if let bytes = body.inMemoryBytes {
            hasher.update(bytes)
            try withBuffers(opening, bytes) { (prefix, rest) throws(CacheChainError) in
                try EntryFileWriter.writeAll(descriptor, prefix, rest, path: path)
            }
        } else {
            var writer = EntryFileWriter(descriptor: descriptor, path: path)
            try withBuffers(opening, []) { (prefix, _) throws(CacheChainError) in try writer.append(prefix) }
            var failure: CacheChainError?
            do {
                try body.forEachChunk { chunk in
                    hasher.update(chunk)
                    do throws(CacheChainError) {
                        try writer.append(chunk)
                    } catch {
                        failure = error
                        throw error
                    }
                }
            } catch {
                throw failure ?? CacheChainError(.bodyUnreadable, "reading the body to store failed", underlying: error)
            }
            try writer.finish()
        }
        let checksum = hasher.value
        let header = EntryCodec.Header(metadataLength: meta.count, bodyLength: body.count, checksum: checksum).bytes
        let written = header.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        guard written == header.count else { throw POSIXFile.failure("writing the entry header of \(path)") }
        return checksum
    }

    /// Calls `body` with the raw bytes of two arrays, passing its typed error through.
    private static func withBuffers(
        _ first: [UInt8],
        _ second: [UInt8],
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws(CacheChainError) -> Void
    ) throws(CacheChainError) {
        let result: Result<Void, CacheChainError> = first.withUnsafeBytes { one in
            second.withUnsafeBytes { two in Result { () throws(CacheChainError) in try body(one, two) } }
        }
        try result.get()
    }

    /// What a verified read returns: the metadata as written in the file, and the body.
    struct Contents {
        var meta: [UInt8]
        var body: PipelineBody
    }

    /// Opens an entry file, checks header, lengths and the checksum of metadata + body against the index
    /// row (one bounded-memory pass: each chunk is hashed as it is read, ``readChunkSize`` at a time), and
    /// returns the body in memory (up to `inMemoryLimit`) or as a ``BodyFile`` region of the entry file.
    /// - Throws: `.bodyUnreadable` when the file cannot be opened (missing, replaced by a directory);
    ///   `.integrityCheckFailed` when it is truncated, foreign or does not match its checksum.
    static func read(
        path: String,
        metaLength: Int,
        bodyLength: Int,
        checksum: UInt64,
        inMemoryLimit: Int
    ) throws(CacheChainError) -> Contents {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CacheChainError(.bodyUnreadable, "cannot open the entry file \(path): \(SystemCallFailure(code: errno))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw CacheChainError(.bodyUnreadable, "the entry file \(path) is not a regular file")
        }
        // The lengths come from the index row, which a damaged or tampered index can make anything.
        guard metaLength >= 0, bodyLength >= 0, case (let dataLength, false) = metaLength.addingReportingOverflow(bodyLength),
            case (let expectedSize, false) = dataLength.addingReportingOverflow(EntryCodec.headerSize)
        else {
            throw damaged(path, "has an impossible length in its index row (metadata \(metaLength), body \(bodyLength) bytes)")
        }
        guard Int(status.st_size) == expectedSize else {
            throw damaged(path, "holds \(status.st_size) bytes, expected \(expectedSize) (truncated?)")
        }
        let scratchSize = max(EntryCodec.headerSize, min(bodyLength, readChunkSize))
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: scratchSize, alignment: 16)
        defer { scratch.deallocate() }
        let headerBuffer = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<EntryCodec.headerSize])
        try readExactly(descriptor, into: headerBuffer, at: 0, path)
        let header = try EntryCodec.Header(UnsafeRawBufferPointer(headerBuffer), subject: "the entry file \(path)")
        guard header == EntryCodec.Header(metadataLength: metaLength, bodyLength: bodyLength, checksum: checksum) else {
            throw damaged(path, "does not match its index row")
        }
        let hasher = EntryChecksum()
        let meta = try readArray(descriptor, count: metaLength, at: EntryCodec.headerSize, path, hashingInto: hasher)
        let bodyStart = EntryCodec.headerSize + metaLength
        if bodyLength <= inMemoryLimit {
            let body = try readArray(descriptor, count: bodyLength, at: bodyStart, path, hashingInto: hasher)
            guard hasher.value == checksum else { throw damaged(path, "does not match its checksum") }
            return Contents(meta: meta, body: PipelineBody(body))
        }
        var position = 0
        while position < bodyLength {
            let chunk = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<min(scratch.count, bodyLength - position)])
            try readExactly(descriptor, into: chunk, at: bodyStart + position, path)
            hasher.update(UnsafeRawBufferPointer(chunk))
            position += chunk.count
        }
        guard hasher.value == checksum else { throw damaged(path, "does not match its checksum") }
        // The name is never reused, so reopening it yields the bytes just verified (or fails if evicted).
        return Contents(meta: meta, body: PipelineBody(file: try BodyFile(path: path, offset: bodyStart, length: bodyLength)))
    }

    /// The bytes read and hashed at a time: small enough that a chunk is still in the CPU's cache when it is
    /// hashed, so a hit reads its bytes from memory once (the copy out of the page cache), not twice.
    static let readChunkSize = 64 << 10

    /// Reads `count` bytes into a new array chunk by chunk, adding each chunk to `hasher` right after it is read.
    private static func readArray(
        _ descriptor: Int32,
        count: Int,
        at offset: Int,
        _ path: String,
        hashingInto hasher: EntryChecksum
    ) throws(CacheChainError) -> [UInt8] {
        var failure: CacheChainError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(CacheChainError) {
                let whole = UnsafeMutableRawBufferPointer(buffer)
                var position = 0
                while position < count {
                    let chunk = UnsafeMutableRawBufferPointer(rebasing: whole[position..<min(count, position + readChunkSize)])
                    try readExactly(descriptor, into: chunk, at: offset + position, path)
                    hasher.update(UnsafeRawBufferPointer(chunk))
                    position += chunk.count
                }
                initialized = count
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return bytes
    }

    private static func readExactly(
        _ descriptor: Int32,
        into buffer: UnsafeMutableRawBufferPointer,
        at offset: Int,
        _ path: String
    ) throws(CacheChainError) {
        guard let base = buffer.baseAddress else { return }
        var done = 0
        while done < buffer.count {
            let result = pread(descriptor, base + done, buffer.count - done, off_t(offset + done))
            if result < 0 {
                if errno == EINTR { continue }
                throw CacheChainError(.bodyUnreadable, "reading the entry file \(path) failed: \(SystemCallFailure(code: errno))")
            }
            if result == 0 { throw damaged(path, "ended early (truncated)") }
            done += result
        }
    }

    private static func damaged(_ path: String, _ what: String) -> CacheChainError {
        CacheChainError(.integrityCheckFailed, "the entry file \(path) \(what)")
    }
}
