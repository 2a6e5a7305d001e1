import CacheChainCore
@testable import CacheChainEncryption
import CacheChainTesting
import Testing

@Suite("EntryMetadataCodec format")
struct EntryMetadataCodecGoldenTests {
    @Test("the sealed metadata of a fixed entry encodes to the recorded bytes (envelope format 1) and decodes back")
    func golden() throws {
        let entry = MetadataGoldenEntry.entry
        let bytes = EntryMetadataCodec.encode(entry)
        #expect(MetadataGoldenEntry.hex(bytes) == Self.recorded)
        var decoded = try EntryMetadataCodec.decode(bytes)
        #expect(decoded.bodyLength == 5)
        decoded.entry.cached.body = entry.cached.body
        #expect(decoded.entry == entry)
    }

    /// Recorded from the codec before the shared metadata coding was extracted.
    static let recorded =
        "000000034745540000000568747470730000000b6578616d706c652e636f6d000000062f613f623d310000000874656e"
        + "616e743d31000000116163636570743d746578742f706c61696e0000000347455401000000056874747073010000000b"
        + "6578616d706c652e636f6d01000000062f613f623d310000000200000006416363657074000000000a746578742f706c"
        + "61696e0000000f4163636570742d4c616e67756167650000000002656e000000c8000000024f4b000000040000000d43"
        + "616368652d436f6e74726f6c000000000a6d61782d6167653d3630000000044554616700000000042276312200000004"
        + "5661727900000000064163636570740000000a5365742d436f6f6b69650300000003613d620000000200000002696400"
        + "00000137000000037461670000000322742201408f420000000000408f4c0000000000408f5600000000000000000000"
        + "000005"
}
