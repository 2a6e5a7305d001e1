import CacheChainCore

/// The entries decoded from recently read metadata, by index row: a hit on an entry whose checked metadata
/// bytes are the same as last time reuses that decoding instead of parsing every header field again (about
/// half of a 1 KiB disk hit on the reference machine).
///
/// Exact, not a guess: the memo is used only when the metadata just read — and already checked against the
/// row's checksum — is byte for byte the metadata decoded before, so the result is what decoding would
/// give. Bounded: ``capacity`` rows, oldest forgotten first; bodies are never kept. Shared by the storage's thread
/// and lookups on callers' threads (`DiskReaders`): the lock is held to look up or insert, never to decode.
final class DecodedMetadataMemo: Sendable {
    /// The most rows remembered.
    static let capacity = 1024

    private struct Decoded: Sendable {
        var meta: [UInt8]
        var entry: CacheEntry
    }

    private let memo = LockedValue(BoundedMemo<Int64, Decoded>(capacity: capacity))

    /// How many rows are remembered (for tests).
    var count: Int { memo.withLock { $0.count } }

    /// The entry that `meta` (checked metadata of the row `rowID`) describes, with `body`.
    /// - Throws: `integrity-check-failed` when the metadata cannot be decoded.
    func decode(rowID: Int64, meta: [UInt8], body: PipelineBody) throws(CacheChainError) -> CacheEntry {
        var entry: CacheEntry
        if let known = memo.withLock({ $0.value(for: rowID) }),
           known.meta.withUnsafeBytes({ kept in meta.withUnsafeBytes { sameBytes(kept, $0) } }) {
            entry = known.entry
        } else {
            entry = try EntryCodec.decodeMetadata(meta, body: .empty, subject: DiskEntryFile.metadataSubject)
            memo.withLock { $0.insert(Decoded(meta: meta, entry: entry), for: rowID) }
        }
        entry.replaceBody(with: body)
        return entry
    }
}
