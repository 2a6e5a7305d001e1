import CacheChainCore

/// The entries decoded from recently read metadata, by index row: a hit on an entry whose checked metadata
/// bytes are the same as last time reuses that decoding instead of parsing every header field again (about
/// half of a 1 KiB disk hit on the reference machine).
///
/// Exact, not a guess: the memo is used only when the metadata just read — and already checked against the
/// row's checksum — is byte for byte the metadata decoded before, so the result is what decoding would
/// give. Bounded: ``capacity`` rows, oldest forgotten first; bodies are never kept.
struct DecodedMetadataMemo {
    /// The most rows remembered.
    static let capacity = 1024

    private struct Decoded: Sendable {
        var meta: [UInt8]
        var entry: CacheEntry
    }

    private var memo = BoundedMemo<Int64, Decoded>(capacity: capacity)

    /// How many rows are remembered (for tests).
    var count: Int { memo.count }

    /// The entry that `meta` (checked metadata of the row `rowID`) describes, with `body`.
    /// - Throws: `integrity-check-failed` when the metadata cannot be decoded.
    mutating func decode(rowID: Int64, meta: [UInt8], body: HTTPBody) throws(CacheChainError) -> CacheEntry {
        var entry: CacheEntry
        if let known = memo.value(for: rowID),
           known.meta.withUnsafeBytes({ kept in meta.withUnsafeBytes { sameBytes(kept, $0) } }) {
            entry = known.entry
        } else {
            entry = try EntryCodec.decodeMetadata(meta, body: .empty, subject: DiskEntryFile.metadataSubject)
            memo.insert(Decoded(meta: meta, entry: entry), for: rowID)
        }
        entry.replaceBody(with: body)
        return entry
    }
}
