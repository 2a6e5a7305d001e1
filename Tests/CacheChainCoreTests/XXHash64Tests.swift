import CacheChainCore
import Testing

@Suite("XXH64 checksum")
struct XXHash64Tests {
    @Test(
        "published XXH64 values (seed 0)",
        arguments: [
            ("", 0xEF46_DB37_51D8_E999 as UInt64),
            ("a", 0xD24E_C4F1_A98C_6E5B),
            ("abc", 0x44BC_2CF5_AD77_0999),
        ]
    )
    func knownAnswers(input: String, expected: UInt64) {
        #expect(XXHash64.hash(Array(input.utf8)) == expected)
    }

    @Test("streaming in uneven pieces gives the one-shot hash, for every split of a 100-byte input")
    func streamingMatchesOneShot() {
        let bytes = (0..<100).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let expected = XXHash64.hash(bytes)
        for split in 0...bytes.count {
            var hasher = XXHash64()
            bytes[..<split].withUnsafeBytes { hasher.update($0) }
            bytes[split...].withUnsafeBytes { hasher.update($0) }
            #expect(hasher.finalize() == expected, "split at \(split)")
        }
        var oneByOne = XXHash64()
        for byte in bytes { [byte].withUnsafeBytes { oneByOne.update($0) } }
        #expect(oneByOne.finalize() == expected)
        #expect(XXHash64.hash(Array(bytes.dropLast())) != expected)
    }
}
