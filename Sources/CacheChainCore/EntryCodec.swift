/// The one binary form of a stored ``CacheEntry``, shared by every persistent backend: the disk storage's
/// entry files and index rows, the plaintext the encryption plugin seals, and the Redis backend's values.
///
/// A record is a ``headerSize``-byte header (magic `CCDE`, ``version``, reference length, metadata length,
/// body length, checksum; little-endian), the body's reference when the body lives elsewhere, the metadata
/// (``encodeMetadata(_:)``), and the body when inline. One version number covers the record and every
/// container that holds it; bytes of another version are refused, never read as this one.
/// `Sources/CacheChainDiskStorage/Docs.docc/OnDiskFormat.md` gives every byte and the upgrade policy.
package enum EntryCodec {
    /// The format version of everything CacheChain stores (format 5: the first with one codec for every
    /// backend; formats 1–4 were the disk storage's alone).
    package static let version: UInt8 = 5
    /// `CCDE` read as a little-endian integer.
    package static let magic: UInt32 = 0x4544_4343
    /// The header's size in bytes.
    package static let headerSize = 26

    /// A record's header.
    package struct Header: Sendable, Equatable {
        /// The reference's length in bytes; 0 when the body is inline.
        package var referenceLength: Int
        /// The metadata's length in bytes.
        package var metadataLength: Int
        /// The body's length in bytes (wherever it is).
        package var bodyLength: Int
        /// The backend's checksum.
        package var checksum: UInt64

        package init(referenceLength: Int = 0, metadataLength: Int, bodyLength: Int, checksum: UInt64 = 0) {
            self.referenceLength = referenceLength
            self.metadataLength = metadataLength
            self.bodyLength = bodyLength
            self.checksum = checksum
        }

        package var bytes: [UInt8] {
            var writer = BinaryWriter(byteOrder: .littleEndian, capacity: headerSize)
            writer.u32(magic)
            writer.u8(version)
            writer.u8(UInt8(referenceLength))
            writer.u32(UInt32(metadataLength))
            writer.u64(UInt64(bodyLength))
            writer.u64(checksum)
            return writer.bytes
        }

        /// Reads the header at the start of `bytes`.
        /// - Parameters:
        ///   - bytes: At least ``headerSize`` bytes.
        ///   - subject: What the bytes are, for errors (e.g. "a disk cache entry file").
        /// - Throws: `integrity-check-failed` when the bytes are too short, foreign, or of another format version.
        package init(_ bytes: UnsafeRawBufferPointer, subject: String) throws(CacheChainError) {
            var reader = BinaryReader(bytes, subject: subject)
            guard bytes.count >= headerSize else { throw reader.malformed("truncated header") }
            guard try reader.u32() == magic else {
                throw CacheChainError(.integrityCheckFailed, "\(subject) is not a CacheChain entry (no CCDE magic)")
            }
            let found = try reader.u8()
            guard found == version else { throw EntryCodec.otherVersion(found, subject: subject) }
            referenceLength = Int(try reader.u8())
            metadataLength = Int(try reader.u32())
            let length = try reader.u64()
            guard length <= UInt64(Int.max) else { throw reader.malformed("body length") }
            bodyLength = Int(length)
            checksum = try reader.u64()
        }
    }

    /// The error for bytes written in another format version: older ones are not read (a cache can always
    /// be refilled), newer ones are left to the build that wrote them.
    /// - Parameters:
    ///   - found: The version the bytes record.
    ///   - subject: What the bytes are.
    /// - Returns: An `integrity-check-failed` error naming both versions.
    package static func otherVersion(_ found: UInt8, subject: String) -> CacheChainError {
        let which = found < version ? "an older CacheChain's, which this build does not read" : "a newer CacheChain's"
        return CacheChainError(
            .integrityCheckFailed, "\(subject) has unknown format version \(found) (\(which); this build reads format \(version))"
        )
    }

    /// The parts of a record held in memory, as views into its bytes.
    package struct Parts {
        package var header: Header
        /// Where the body is (empty for an inline body).
        package var reference: UnsafeRawBufferPointer
        package var metadata: UnsafeRawBufferPointer
        /// The inline body (empty when the body is elsewhere).
        package var body: UnsafeRawBufferPointer

        /// Splits `record` into its parts, checking that the lengths add up.
        /// - Throws: `integrity-check-failed` when they do not, or as ``Header/init(_:subject:)``.
        package init(_ record: UnsafeRawBufferPointer, subject: String) throws(CacheChainError) {
            header = try Header(record, subject: subject)
            let metadataStart = headerSize + header.referenceLength
            let (bodyStart, overflow) = metadataStart.addingReportingOverflow(header.metadataLength)
            let expectedBody = header.referenceLength == 0 ? header.bodyLength : 0
            guard !overflow, bodyStart <= record.count, record.count - bodyStart == expectedBody else {
                throw CacheChainError(
                    .integrityCheckFailed, "\(subject) holds \(record.count) bytes, not what its header records (truncated?)"
                )
            }
            reference = UnsafeRawBufferPointer(rebasing: record[headerSize..<metadataStart])
            metadata = UnsafeRawBufferPointer(rebasing: record[metadataStart..<bodyStart])
            body = UnsafeRawBufferPointer(rebasing: record[bodyStart...])
        }
    }

    /// A whole record in memory.
    /// - Parameters:
    ///   - metadata: The entry's ``encodeMetadata(_:)``.
    ///   - body: The inline body, or empty when `reference` names where it is.
    ///   - bodyLength: The body's length.
    ///   - reference: Where the body is (at most 255 bytes), or empty.
    ///   - checksum: The backend's checksum.
    /// - Returns: Header, reference, metadata and body.
    package static func record(
        metadata: [UInt8],
        body: [UInt8] = [],
        bodyLength: Int,
        reference: [UInt8] = [],
        checksum: UInt64
    ) -> [UInt8] {
        precondition(reference.count <= 255, "a body reference is at most 255 bytes")
        let header = Header(referenceLength: reference.count, metadataLength: metadata.count, bodyLength: bodyLength, checksum: checksum)
        return header.bytes + reference + metadata + body
    }
}
