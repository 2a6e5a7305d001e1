import CXXHash
@testable import CacheChainDiskStorage
@testable import CacheChainStorage
import Testing

@Suite("Disk entry checksum (XXH3-64)")
struct EntryChecksumTests {
    @Test("the published XXH3-64 value of the empty input (seed 0)")
    func emptyKnownAnswer() {
        #expect(EntryChecksum.of([], []) == 0x2D06_8005_38D3_94C2)
    }

    @Test(
        "metadata + body streamed in uneven pieces through the run-time dispatched path equals libxxhash's one-shot XXH3 of the concatenation",
        arguments: [1, 3, 16, 17, 128, 129, 240, 241, 1024, 65_536 + 7, (1 << 20) + 13]
    )
    func streamingMatchesOneShot(size: Int) {
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let expected = bytes.withUnsafeBytes { XXH3_64bits($0.baseAddress, $0.count) }
        let split = size / 3
        #expect(EntryChecksum.of(Array(bytes[..<split]), Array(bytes[split...])) == expected)
        let pieces = EntryChecksum()
        var offset = 0
        var piece = 1
        while offset < size {
            let end = min(size, offset + piece)
            bytes[offset..<end].withUnsafeBytes { pieces.update($0) }
            offset = end
            piece = piece * 3 + 1
        }
        #expect(pieces.value == expected)
    }

    @Test("one flipped bit anywhere in a 64 KiB body changes the checksum")
    func flippedBit() {
        let meta = Array("meta".utf8)
        var body = (0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let original = EntryChecksum.of(meta, body)
        for position in stride(from: 0, to: body.count, by: 4_099) {
            body[position] ^= 0x10
            #expect(EntryChecksum.of(meta, body) != original, "bit flipped at \(position)")
            body[position] ^= 0x10
        }
        #expect(EntryChecksum.of(meta, body) == original)
    }
}
