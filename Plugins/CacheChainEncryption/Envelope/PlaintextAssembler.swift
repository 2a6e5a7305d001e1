import CacheChainCore

/// Rebuilds an entry from its opened plaintext stream, `metadata length (4) · metadata · body`, as
/// segments arrive. In metadata-only mode it reports completion as soon as the metadata is in, so that
/// management operations (key listing, URL-prefix purges) never decrypt bodies.
struct PlaintextAssembler {
    static let maximumMetadataLength = 16 << 20

    let metadataOnly: Bool
    private let spool: SpoolPolicy
    private var lengthBytes: [UInt8] = []
    private var metadataLength: Int?
    private var metadata: [UInt8] = []
    private(set) var decoded: (entry: CacheEntry, bodyLength: Int)?
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
            if metadataLength == nil {
                let taken = min(4 - lengthBytes.count, input.count - offset)
                appendBytes(UnsafeRawBufferPointer(rebasing: input[offset..<offset + taken]), to: &lengthBytes)
                offset += taken
                if lengthBytes.count == 4 {
                    let length = lengthBytes.reduce(0) { $0 << 8 | Int($1) }
                    guard length <= Self.maximumMetadataLength else { throw Self.malformed("metadata length") }
                    metadataLength = length
                    metadata.reserveCapacity(length)
                    if length == 0 { try decodeMetadata() }
                }
            } else if let length = metadataLength, decoded == nil {
                let taken = min(length - metadata.count, input.count - offset)
                appendBytes(UnsafeRawBufferPointer(rebasing: input[offset..<offset + taken]), to: &metadata)
                offset += taken
                if metadata.count == length { try decodeMetadata() }
            } else {
                if metadataOnly { return }
                let remaining = input.count - offset
                guard let expected = decoded?.bodyLength, let body, body.count + remaining <= expected else {
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
        guard let decoded else { throw Self.malformed("metadata missing") }
        if metadataOnly { return decoded.entry }
        guard let body, body.count == decoded.bodyLength else { throw Self.malformed("body shorter than recorded") }
        var entry = decoded.entry
        entry.replaceBody(with: try body.finish())
        return entry
    }

    private mutating func decodeMetadata() throws(CacheChainError) {
        let result = if let memo {
            try memo.cache.metadata(salt: memo.salt, plaintext: metadata)
        } else {
            try EntryMetadataCodec.decode(metadata)
        }
        decoded = result
        if !metadataOnly { body = try ByteSink(expectedCount: result.bodyLength, policy: spool) }
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
