import CacheChainCore
import Testing

@Suite("sameBytes")
struct SameBytesTests {
    @Test("equal bytes compare equal; a different byte anywhere, another length or one empty side do not")
    func comparesEveryByte() {
        let bytes: [UInt8] = Array(0..<200)
        func same(_ left: [UInt8], _ right: [UInt8]) -> Bool {
            left.withUnsafeBytes { leftBytes in right.withUnsafeBytes { sameBytes(leftBytes, $0) } }
        }
        #expect(same(bytes, bytes))
        #expect(same([], []))
        #expect(!same(bytes, Array(bytes.dropLast())))
        #expect(!same(bytes, []))
        for index in [0, 99, 199] {
            var changed = bytes
            changed[index] ^= 0x80
            #expect(!same(bytes, changed))
        }
    }
}
