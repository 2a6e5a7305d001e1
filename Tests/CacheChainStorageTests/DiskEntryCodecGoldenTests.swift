import CacheChainCore
@testable import CacheChainDiskStorage
@testable import CacheChainStorage
import CacheChainTesting
import Testing

@Suite("DiskEntryCodec format")
struct DiskEntryCodecGoldenTests {
    @Test("the metadata of a fixed entry encodes to the recorded bytes (format 1) and decodes back")
    func golden() throws {
        let entry = MetadataGoldenEntry.entry
        let bytes = DiskEntryCodec.encodeMeta(entry)
        #expect(MetadataGoldenEntry.hex(bytes) == Self.recorded)
        let decoded = try DiskEntryCodec.decodeMeta(bytes, body: entry.cached.body)
        #expect(decoded.entry == entry)
        #expect(decoded.bodyLength == 5)
    }

    /// Recorded from the codec before the shared metadata coding was extracted.
    static let recorded =
        "01030000004745540500000068747470730b0000006578616d706c652e636f6d060000002f613f623d31080000007465"
        + "6e616e743d31110000006163636570743d746578742f706c61696e0300000047455401050000006874747073010b0000"
        + "006578616d706c652e636f6d01060000002f613f623d310200000006000000416363657074000a000000746578742f70"
        + "6c61696e0f0000004163636570742d4c616e67756167650002000000656ec8000000020000004f4b040000000d000000"
        + "43616368652d436f6e74726f6c000a0000006d61782d6167653d36300400000045546167000400000022763122040000"
        + "005661727900060000004163636570740a0000005365742d436f6f6b69650303000000613d6202000000020000006964"
        + "01000000370300000074616703000000227422010000000000428f4000000000004c8f400000000000568f4005000000"
        + "00000000"
}
