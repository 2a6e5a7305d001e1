import CacheChainEncryption

/// The envelope target's input: a mode byte, then an envelope (even modes) or a plaintext stream cut into
/// pieces at the next three bytes' offsets (odd modes).
enum EncryptionFuzzing {
    static func envelope(_ bytes: [UInt8], fuzzer: EnvelopeFuzzer) -> Bool {
        var input = FuzzBytes(bytes)
        let mode = input.byte()
        if mode & 1 == 0 {
            return fuzzer.open(input.rest) != nil
        }
        let cuts = [Int(input.byte()), Int(input.byte()) * 4, Int(input.byte()) * 64]
        return fuzzer.assemble(input.rest, cuts: cuts) != nil
    }

    static func seeds(_ fuzzer: EnvelopeFuzzer) -> [[UInt8]] {
        [[0] + fuzzer.seed, [1, 3, 5, 7] + fuzzer.plaintextSeed]
    }
}
