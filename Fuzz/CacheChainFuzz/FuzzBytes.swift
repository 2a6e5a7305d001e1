/// Takes structured values off the front of a fuzz input (libFuzzer's FuzzedDataProvider, in small).
struct FuzzBytes {
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: [UInt8]) {
        self.bytes = bytes[...]
    }

    /// The next byte, or 0 when the input is used up.
    mutating func byte() -> UInt8 {
        bytes.popFirst() ?? 0
    }

    /// The next two bytes as a little-endian number.
    mutating func u16() -> Int {
        Int(byte()) | Int(byte()) << 8
    }

    /// Everything left.
    var rest: [UInt8] { Array(bytes) }
}
