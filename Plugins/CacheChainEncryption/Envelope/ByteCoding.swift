import CacheChainCore

/// Appends big-endian integers and length-prefixed byte strings.
struct ByteWriter {
    var bytes: [UInt8] = []

    init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func u32(_ value: UInt32) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func u64(_ value: UInt64) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func raw(_ value: some Collection<UInt8>) { bytes.append(contentsOf: value) }

    mutating func data(_ value: some Collection<UInt8>) {
        u32(UInt32(value.count))
        bytes.append(contentsOf: value)
    }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { data($0) }
    }

    mutating func optionalString(_ value: String?) {
        if let value {
            u8(1)
            string(value)
        } else {
            u8(0)
        }
    }
}

/// Reads what ``ByteWriter`` wrote, bounds-checked: malformed input is an error, never a crash.
struct ByteReader {
    private let bytes: [UInt8]
    private(set) var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { position == bytes.count }

    private func malformed() -> CacheChainError {
        CacheChainError(.integrityCheckFailed, "an encrypted entry's metadata is malformed")
    }

    mutating func u8() throws(CacheChainError) -> UInt8 {
        guard position < bytes.count else { throw malformed() }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func u32() throws(CacheChainError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 { value = value << 8 | UInt32(try u8()) }
        return value
    }

    mutating func u64() throws(CacheChainError) -> UInt64 {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(try u8()) }
        return value
    }

    mutating func raw(_ count: Int) throws(CacheChainError) -> ArraySlice<UInt8> {
        guard count >= 0, bytes.count - position >= count else { throw malformed() }
        defer { position += count }
        return bytes[position..<position + count]
    }

    mutating func data() throws(CacheChainError) -> ArraySlice<UInt8> {
        try raw(Int(try u32()))
    }

    mutating func string() throws(CacheChainError) -> String {
        String(decoding: try data(), as: UTF8.self)
    }

    mutating func optionalString() throws(CacheChainError) -> String? {
        switch try u8() {
        case 0: return nil
        case 1: return try string()
        default: throw malformed()
        }
    }
}
