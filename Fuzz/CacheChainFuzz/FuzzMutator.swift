/// Random mutations of seed inputs for the smoke mode (no coverage feedback: libFuzzer does the real work),
/// from a fixed seed so that a failing smoke run can be repeated.
struct FuzzMutator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed | 1
    }

    /// xorshift64*.
    private mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }

    private mutating func below(_ bound: Int) -> Int {
        bound <= 0 ? 0 : Int(next() % UInt64(bound))
    }

    /// One of `seeds` with one to eight edits: flipped bits, set bytes, inserted, removed or repeated runs,
    /// interesting values (0, 0xFF, lengths) and splices from another seed.
    mutating func mutate(_ seeds: [[UInt8]]) -> [UInt8] {
        var bytes = seeds[below(seeds.count)]
        for _ in 0...below(8) {
            let position = below(bytes.count + 1)
            switch below(7) {
            case 0 where !bytes.isEmpty: bytes[min(position, bytes.count - 1)] ^= UInt8(1 << below(8))
            case 1 where !bytes.isEmpty: bytes[min(position, bytes.count - 1)] = [0, 0xFF, 0x7F, 0x80, 10, 13, 34, 92][below(8)]
            case 2: bytes.insert(contentsOf: (0..<below(16)).map { _ in UInt8(truncatingIfNeeded: next()) }, at: position)
            case 3: bytes.removeSubrange(position..<min(bytes.count, position + below(32)))
            case 4 where position < bytes.count:
                let run = bytes[position..<min(bytes.count, position + 1 + below(64))]
                bytes.insert(contentsOf: Array(repeating: Array(run), count: 1 + below(4)).flatMap { $0 }, at: position)
            case 5:
                let other = seeds[below(seeds.count)]
                let start = below(other.count)
                bytes.insert(contentsOf: other[start..<min(other.count, start + below(128))], at: position)
            default:
                let value = [UInt32.max, 0x7FFF_FFFF, 0x8000_0000, UInt32(bytes.count), 0x0100_0000][below(5)]
                bytes.insert(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }, at: position)
            }
        }
        return bytes
    }
}
