import CacheChainCore
@testable import CacheChainEncryption
import CacheChainStorage
import CacheChainTesting
import Foundation
import Testing

/// An envelope sealed by the build before the shared entry codec (envelope format 1: big-endian metadata
/// behind a 4-byte length) is not read as the current format: the lookup deletes it, reports it and misses;
/// the entries of the current format beside it are untouched.
@Suite("Encrypted envelopes of an older format")
struct OlderFormatEnvelopeTests {
    /// The key the fixture was sealed with.
    static func fixtureKey() throws -> EncryptionKey {
        try EncryptionKey(bytes: [UInt8](repeating: 0x5A, count: 32), id: "fixture")
    }

    @Test("a format-1 envelope written by the previous build is deleted, reported and a miss; another entry still opens")
    func formatOneRejected() async throws {
        let key = try Self.fixtureKey()
        let memory = MemoryStorage(capacity: 1 << 20)
        let events = EventLog()
        let storage = EncryptedStorage(wrapping: memory, keys: InMemoryKeyProvider(key: key), events: events.sink)
        let entry = MetadataGoldenEntry.entry
        let old = try #require(Self.bytes(Self.formatOneEnvelope))
        #expect(Array(old.prefix(5)) == Array("CCEN".utf8) + [1], "the fixture is a format-1 envelope")
        var sealed = try storage.seal(entry, with: key)
        sealed.replaceBody(with: PipelineBody(old))
        await memory.store(sealed)
        let current = StorageConformanceSuite.makeEntry(path: "/current")
        try await storage.store(current)

        let error = await #expect(throws: CacheChainError.self) { try await storage.entries(for: entry.key) }
        #expect(error?.code == .integrityCheckFailed)
        #expect(error?.message.contains("unknown format version 1") == true, "\(String(describing: error))")
        #expect(error?.message.contains("older") == true)
        #expect(await memory.entries(for: sealed.key).isEmpty, "the old envelope is deleted")
        #expect(events.all.contains { $0.kind == .storageError && $0.reasons.contains("encrypted-entry-rejected") })
        #expect(try await storage.entries(for: current.key) == [current])
        // Stored again, the entry is sealed in the current format and opens.
        try await storage.store(entry)
        #expect(try await storage.entries(for: entry.key) == [entry])
    }

    static func bytes(_ hex: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }

    /// `MetadataGoldenEntry.entry` as the previous build (main at 97d84e3) sealed it with ``fixtureKey()``
    /// into a `MemoryStorage`: `EncryptedStorage.store`, then the wrapped entry's body.
    static let formatOneEnvelope =
        "4343454e010766697874757265c372b988e3f7792afd65e8d2891a1250e6f403194bb5d2b4fbe0b16c79c25a8c522b66b56f"
        + "7429dd4d973cbb000100009c675a464a88ef7ade99a5fe839791f967519d1a092e63fb85af792a8aa82a86a2ca49bccfeb63"
        + "7f40ddfded64d74639db546238fd714f47608994a3829a86d9642edee794b7dbb0c219fb37e0aabd2233b35454120d9d3737"
        + "3edf50e35d71ad3992a2f4bf01807ac7bf48ba31f5178bd9caac76d890164c25649b8e120835570d58adc3abab019f085df7"
        + "048572e913b7ae8c254abc62f87a022d08a82f8d93c91b3067471249fd25319733baba7cc26ed99742ec3e99f595734d732e"
        + "3b8d96b2be351138649c8d25ba1cc689fcd1f2edd2741f6679923880f1dd098f8bf581ece5f5c6215d6715263b4a98d35018"
        + "4c6a37a530a7010894e08de2deaf1f9ae162ecc1c89803ed1628eee545c65a62345521161486c77db00f4939a2fe2a2d6621"
        + "fb317d0137e1017b5cb27d0e8f54927b6af04260cea0c02241f168d0a76725ed90f15cda40221b17e8d24eee67ec1861a385"
        + "612018aa5a53ecd484c5492fa5752a10e465e0ab70c118023b"
}
