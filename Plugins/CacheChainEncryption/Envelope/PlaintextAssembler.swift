import CacheChainCore

/// Rebuilds an entry from its opened plaintext stream, one ``EntryCodec`` record (header, metadata, body),
/// as segments arrive. In metadata-only mode it reports completion as soon as the metadata is in, so that
/// management operations (key listing, URL-prefix purges) never decrypt bodies.
struct PlaintextAssembler {
    static let maximumMetadataLength = 16 << 20
    /// What an opened envelope's record is called in errors.
    static let subject = "an encrypted entry"

    let metadataOnly: Bool
    private let spool: SpoolPolicy
    private var headerBytes: [UInt8] = []
    private var header: EntryCodec.Header?
    private var metadata: [UInt8] = []
    private(set) var decoded: CacheEntry?
    /// The body being decrypted: in memory, or in a spool file when larger than the spool's limit.
    private var body: ByteSink?
    /// Where decoded metadata is remembered, and the envelope's salt (set once the header is read).
    private var memo: (cache: DerivedKeyCache, salt: [UInt8])?

    init(metadataOnly: Bool, spool: SpoolPolicy) {
        self.metadataOnly = metadataOnly
        self.spool = spool
    }

    /// Lets the metadata decoding be remembered by (and reused from) the opening key's memo, under the
    /// envelope's salt.
    mutating func remember(in cache: DerivedKeyCache, salt: [UInt8]) {
        memo = (cache, salt)
    }

    /// Whether nothing more is needed (metadata-only mode with the metadata decoded).
    var isComplete: Bool { metadataOnly && decoded != nil }

    mutating func consume(_ input: UnsafeRawBufferPointer) throws(CacheChainError) {
        var offset = 0
        while offset < input.count {
            if header == nil {
                let taken = min(EntryCodec.headerSize - headerBytes.count, input.count - offset)
                appendBytes(UnsafeRawBufferPointer(rebasing: input[offset..<offset + taken]), to: &headerBytes)
                offset += taken
                if headerBytes.count == EntryCodec.headerSize {
                    let header = try headerBytes.withBytes { (bytes) throws(CacheChainError) in try Self.recordHeader(bytes) }
                    self.header = header
                    metadata.reserveCapacity(header.metadataLength)
                    if header.metadataLength == 0 { try decodeMetadata() }
                }
            } else if let header, decoded == nil {
                let taken = min(header.metadataLength - metadata.count, input.count - offset)
                appendBytes(UnsafeRawBufferPointer(rebasing: input[offset..<offset + taken]), to: &metadata)
                offset += taken
                if metadata.count == header.metadataLength { try decodeMetadata() }
            } else {
                if metadataOnly { return }
                let remaining = input.count - offset
                guard let expected = header?.bodyLength, let body, body.count + remaining <= expected else {
                    throw Self.malformed("body longer than recorded")
                }
                try body.append(UnsafeRawBufferPointer(rebasing: input[offset...]))
                offset = input.count
            }
        }
    }

    /// Checks that the stream held everything it announced and returns the entry, with its body unless in
    /// metadata-only mode.
    func finish() throws(CacheChainError) -> CacheEntry {
        guard let decoded, let header else { throw Self.malformed("metadata missing") }
        if metadataOnly { return decoded }
        guard let body, body.count == header.bodyLength else { throw Self.malformed("body shorter than recorded") }
        var entry = decoded
        entry.replaceBody(with: try body.finish())
        return entry
    }

    private mutating func decodeMetadata() throws(CacheChainError) {
        decoded = if let memo {
            try memo.cache.metadata(salt: memo.salt, plaintext: metadata)
        } else {
            try EntryCodec.decodeMetadata(metadata, body: .empty, subject: Self.subject)
        }
        if !metadataOnly, let header { body = try ByteSink(expectedCount: header.bodyLength, policy: spool) }
    }

    /// Reads the record header at the start of an opened envelope: its body must be inline and its
    /// metadata within ``maximumMetadataLength``.
    /// - Throws: `integrity-check-failed` otherwise, or as `EntryCodec.Header` (another format version).
    static func recordHeader(_ bytes: UnsafeRawBufferPointer) throws(CacheChainError) -> EntryCodec.Header {
        let header = try EntryCodec.Header(bytes, subject: subject)
        guard header.referenceLength == 0 else { throw malformed("body reference") }
        guard header.metadataLength <= maximumMetadataLength else { throw malformed("metadata length") }
        return header
    }

    /// The error of a plaintext stream that does not hold what it announces.
    static func malformed(_ what: String) -> CacheChainError {
        CacheChainError(.integrityCheckFailed, "an encrypted entry is malformed (\(what))")
    }
}

/// Appends raw bytes to an array with one copy.
func appendBytes(_ bytes: UnsafeRawBufferPointer, to array: inout [UInt8]) {
    array.append(contentsOf: bytes.bindMemory(to: UInt8.self))
}
