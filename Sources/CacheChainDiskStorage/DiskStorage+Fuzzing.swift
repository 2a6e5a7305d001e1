package import CacheChainCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The disk backend's decoders as the fuzz targets in `Fuzz/` drive them (package-visible; not API): the
/// bytes an attacker with write access to a cache directory controls.
package enum DiskFuzzing {
    /// Reads `bytes` as an entry file (written to `scratchPath` first): header, metadata and body checked
    /// against the lengths and checksum its header claims (what the index row would say), then the metadata
    /// decoded, as ``DiskStorage`` reads a large entry (a body over 1 KiB is checksummed in chunks and left in the
    /// file, so that short inputs reach that path too).
    /// - Returns: The entry, or `nil` when the file is refused (a typed error, as for any damaged file).
    package static func readEntryFile(_ bytes: [UInt8], scratchPath: String) -> CacheEntry? {
        let descriptor = open(scratchPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == bytes.count else { return nil }
        func field(_ range: Range<Int>) -> UInt64 {
            guard bytes.count >= range.upperBound else { return 0 }
            return range.reversed().reduce(0) { $0 << 8 | UInt64(bytes[$1]) }
        }
        do throws(CacheChainError) {
            let contents = try DiskEntryFile.read(
                path: scratchPath, metaLength: Int(field(6..<10)), bodyLength: Int(truncatingIfNeeded: field(10..<18)),
                checksum: field(18..<26), inMemoryLimit: 1024
            )
            return try EntryCodec.decodeMetadata(contents.meta, body: contents.body, subject: DiskEntryFile.metadataSubject)
        } catch {
            return nil
        }
    }

    /// Reads an index row holding an inline body as ``DiskStorage`` does: the row's checksum and body length
    /// checked, then the metadata decoded (through the memo, twice: the second time it is remembered).
    /// - Parameters:
    ///   - meta: The row's `meta` column.
    ///   - body: The row's `body` column.
    ///   - bodyLength: The row's `body_length` column.
    ///   - checksumMatches: Whether the row's `checksum` column is right (an attacker can compute it).
    /// - Returns: The entry as first decoded and as the memo gives it back, or `nil` when the row is refused.
    package static func readIndexRow(
        meta: [UInt8],
        body: [UInt8],
        bodyLength: Int,
        checksumMatches: Bool
    ) -> (decoded: CacheEntry, remembered: CacheEntry)? {
        let checksum = EntryChecksum.of(meta, body) &+ (checksumMatches ? 0 : 1)
        guard EntryChecksum.of(meta, body) == checksum, body.count == bodyLength else { return nil }
        let memo = DecodedMetadataMemo()
        do throws(CacheChainError) {
            let first = try memo.decode(rowID: 1, meta: meta, body: PipelineBody(body))
            let again = try memo.decode(rowID: 1, meta: meta, body: PipelineBody(body))
            return (first, again)
        } catch {
            return nil
        }
    }

    /// An entry file holding `entry` (in-memory body), for the seed corpus.
    package static func seedEntryFile(_ entry: CacheEntry) -> [UInt8] {
        let meta = EntryCodec.encodeMetadata(entry)
        let body = entry.cached.body.inMemoryBytes ?? []
        return EntryCodec.record(metadata: meta, body: body, bodyLength: body.count, checksum: EntryChecksum.of(meta, body))
    }
}
