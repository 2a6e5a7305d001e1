import CacheChainCore
import Foundation

/// Writes a large body to a staging key in chunks: bounded memory whatever the body's size.
enum RedisBodyWriter {
    static let chunkSize = 1 << 20

    /// Appends the body to `key` (replacing what is there) and returns the checksum of `metadata` followed
    /// by the body (the entry record's checksum).
    static func append(
        _ body: PipelineBody,
        to key: [UInt8],
        after metadata: [UInt8],
        connection: RedisConnection
    ) throws(CacheChainError) -> UInt64 {
        _ = try connection.run([Array("UNLINK".utf8), key])
        var checksum = RedisChecksum()
        metadata.withUnsafeBytes { checksum.update($0) }
        var failure: CacheChainError?
        do {
            try body.forEachChunk(maximumSize: chunkSize) { chunk in
                checksum.update(chunk)
                let reply = try connection.run([Array("APPEND".utf8), key], appending: chunk)
                if case .error(let text) = reply {
                    throw CacheChainError(.storageFailed, "Redis refused a body chunk: \(text)")
                }
            }
            // A crash between here and the store script leaves only a staging key, which expires.
            _ = try connection.run([Array("PEXPIRE".utf8), key, Array("3600000".utf8)])
        } catch let error as CacheChainError {
            failure = error
        } catch {
            failure = CacheChainError(.storageFailed, "writing a body to Redis failed", underlying: error)
        }
        if let failure {
            _ = try? connection.run([Array("UNLINK".utf8), key])
            throw failure
        }
        return checksum.finalize()
    }
}

/// Reads a referenced body back: in one `GET` up to 8 MiB, else in 1 MiB `GETRANGE` chunks spooled to a
/// file; always checked against the record's body length and checksum (of metadata + body).
enum RedisBodyReader {
    static let inMemoryLimit = 8 << 20

    static func read(
        key: [UInt8],
        of decoded: RedisEntryCodec.Decoded,
        connection: RedisConnection,
        configuration: RedisStorage.Configuration
    ) throws(CacheChainError) -> PipelineBody {
        let bodyLength = decoded.header.bodyLength
        let cacheKey = decoded.entry.key
        var checksum = RedisChecksum()
        decoded.metadata.withUnsafeBytes { checksum.update($0) }
        if bodyLength <= inMemoryLimit {
            guard let bytes = try connection.run([Array("GET".utf8), key]).bytes else {
                throw CacheChainError(.integrityCheckFailed, "a Redis entry's body key is missing (expired or evicted)", cacheKey: cacheKey)
            }
            bytes.withUnsafeBytes { checksum.update($0) }
            guard bytes.count == bodyLength, checksum.finalize() == decoded.header.checksum else {
                throw CacheChainError(.integrityCheckFailed, "a Redis entry's body does not match its checksum", cacheKey: cacheKey)
            }
            return PipelineBody(bytes)
        }
        let writer = try BodyFileWriter(directory: configuration.spoolDirectory)
        var position = 0
        while position < bodyLength {
            let end = min(bodyLength, position + RedisBodyWriter.chunkSize) - 1
            guard let chunk = try connection.run([Array("GETRANGE".utf8), key, Array(String(position).utf8), Array(String(end).utf8)]).bytes,
                chunk.count == end - position + 1
            else {
                writer.discard()
                throw CacheChainError(.integrityCheckFailed, "a Redis entry's body is shorter than recorded", cacheKey: cacheKey)
            }
            chunk.withUnsafeBytes { checksum.update($0) }
            try writer.append(chunk)
            position += chunk.count
        }
        guard checksum.finalize() == decoded.header.checksum else {
            writer.discard()
            throw CacheChainError(.integrityCheckFailed, "a Redis entry's body does not match its checksum", cacheKey: cacheKey)
        }
        return try writer.finish()
    }
}

/// SCAN with a MATCH pattern, in batches.
enum RedisScan {
    static func forEachBatch(
        matching pattern: String,
        connection: RedisConnection,
        _ body: ([[UInt8]]) throws(CacheChainError) -> Void
    ) throws(CacheChainError) {
        var cursor = "0"
        repeat {
            let reply = try connection.run([
                Array("SCAN".utf8), Array(cursor.utf8), Array("MATCH".utf8), Array(pattern.utf8), Array("COUNT".utf8), Array("1000".utf8),
            ])
            guard case .array(let parts) = reply, parts.count == 2, let next = parts[0].text, case .array(let keys) = parts[1] else {
                throw CacheChainError(.storageFailed, "Redis answered SCAN unexpectedly: \(reply)")
            }
            let batch = keys.compactMap(\.bytes)
            if !batch.isEmpty { try body(batch) }
            cursor = next
        } while cursor != "0"
    }
}

/// Glob escaping for SCAN MATCH, so a namespace like `a*b` matches only itself.
enum RedisPattern {
    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            if "*?[]\\^".contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }
}
