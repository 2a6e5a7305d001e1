import CacheChainRedis
import Testing

@Suite("Redis values' XXH64 checksum")
struct RedisChecksumTests {
    private static func checksum(_ pieces: [[UInt8]]) -> UInt64 {
        var checksum = RedisChecksum()
        for piece in pieces { piece.withUnsafeBytes { checksum.update($0) } }
        return checksum.finalize()
    }

    @Test(
        "published XXH64 values (seed 0)",
        arguments: [
            ("", 0xEF46_DB37_51D8_E999 as UInt64),
            ("a", 0xD24E_C4F1_A98C_6E5B),
            ("abc", 0x44BC_2CF5_AD77_0999),
        ]
    )
    func knownAnswers(input: String, expected: UInt64) {
        #expect(Self.checksum([Array(input.utf8)]) == expected)
    }

    @Test("streaming in uneven pieces gives the one-shot checksum, for every split of a 100-byte input")
    func streamingMatchesOneShot() {
        let bytes = (0..<100).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let expected = Self.checksum([bytes])
        for split in 0...bytes.count {
            #expect(Self.checksum([Array(bytes[..<split]), Array(bytes[split...])]) == expected, "split at \(split)")
        }
        #expect(Self.checksum(bytes.map { [$0] }) == expected)
        #expect(Self.checksum([Array(bytes.dropLast())]) != expected)
    }
}
