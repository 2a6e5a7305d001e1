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
        var bodyLength: Int
    }

    private var memo = BoundedMemo<Int64, Decoded>(capacity: capacity)

    /// How many rows are remembered (for tests).
    var count: Int { memo.count }

    /// The entry that `meta` (checked metadata of the row `rowID`) describes, with `body`, and the body
    /// length the metadata records.
    /// - Throws: `integrity-check-failed` when the metadata cannot be decoded.
    mutating func decode(
        rowID: Int64,
        meta: [UInt8],
        body: HTTPBody
    ) throws(CacheChainError) -> (entry: CacheEntry, bodyLength: Int) {
        if let known = memo.value(for: rowID),
           known.meta.withUnsafeBytes({ kept in meta.withUnsafeBytes { sameBytes(kept, $0) } }) {
            var entry = known.entry
            entry.replaceBody(with: body)
            return (entry, known.bodyLength)
        }
        var decoded = try DiskEntryCodec.decodeMeta(meta, body: .empty)
        memo.insert(Decoded(meta: meta, entry: decoded.entry, bodyLength: decoded.bodyLength), for: rowID)
        decoded.entry.replaceBody(with: body)
        return decoded
    }
}
