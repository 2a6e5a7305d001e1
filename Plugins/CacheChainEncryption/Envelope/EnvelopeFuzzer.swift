import CacheChain
package import CacheChainCore
import Foundation

/// The encrypted envelope's decoders as the fuzz targets in `Fuzz/` drive them (package-visible; not API):
/// an envelope as a stolen or tampered backend holds it, and the plaintext stream an opened envelope yields.
package struct EnvelopeFuzzer: Sendable {
    private let storage: EncryptedStorage
    private let key: EncryptionKey
    private let template: CacheEntry
    private let entry: CacheEntry

    /// A fuzzer with a fixed key (ID `fuzz`) and one sealed entry whose names bind every envelope opened.
    /// - Parameters:
    ///   - entry: The entry sealed as the template (its envelope is ``seed``).
    ///   - spoolDirectory: Where bodies over 4 KiB are decrypted to (a small limit, so that short inputs reach the spool).
    /// - Throws: ``CacheChainError`` when the key or the seal cannot be made.
    package init(sealing entry: CacheEntry, spoolDirectory: String) throws(CacheChainError) {
        key = try EncryptionKey(bytes: [UInt8](repeating: 0x5A, count: 32), id: "fuzz")
        storage = EncryptedStorage(
            wrapping: MemoryStorage(capacity: 1 << 20), keys: InMemoryKeyProvider(key: key), events: .none,
            segmentSize: EnvelopeHeader.segmentSizes.lowerBound,
            spool: SpoolPolicy(directory: spoolDirectory, inMemoryLimit: 4096)
        )
        self.entry = entry
        template = try storage.seal(entry, with: key)
    }

    /// The template's envelope: a valid input to start from.
    package var seed: [UInt8] { template.cached.body.inMemoryBytes ?? [] }

    /// A valid plaintext stream (an `EntryCodec` record) of the template's entry.
    package var plaintextSeed: [UInt8] {
        let body = entry.cached.body.inMemoryBytes ?? []
        return EntryCodec.record(metadata: EntryCodec.encodeMetadata(entry), body: body, bodyLength: body.count, checksum: 0)
    }

    /// Opens `bytes` as the template's envelope, as ``EncryptedStorage`` opens a stored entry.
    /// - Returns: The entry, or `nil` when the envelope is refused (a typed error).
    package func open(_ bytes: [UInt8]) -> CacheEntry? {
        var sealed = template
        sealed.replaceBody(with: PipelineBody(bytes))
        return try? storage.open(sealed, likelyKey: key)
    }

    /// Feeds `plaintext` to the assembler that rebuilds an entry from an opened envelope (an `EntryCodec`
    /// record), in pieces cut at `cuts`, as decrypted segments arrive.
    /// - Returns: The entry, or `nil` when the stream is refused.
    package func assemble(_ plaintext: [UInt8], cuts: [Int]) -> CacheEntry? {
        var assembler = PlaintextAssembler(metadataOnly: false, spool: storage.spool)
        do throws(CacheChainError) {
            var start = 0
            for cut in cuts.map({ min(max($0, 0), plaintext.count) }).sorted() + [plaintext.count] where cut >= start {
                let piece = Array(plaintext[start..<cut])
                try piece.withBytes { (bytes) throws(CacheChainError) in try assembler.consume(bytes) }
                start = cut
            }
            return try assembler.finish()
        } catch {
            return nil
        }
    }
}
