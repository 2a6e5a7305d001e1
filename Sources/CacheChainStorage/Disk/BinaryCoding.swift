import CacheChainCore

/// Appends little-endian integers and length-prefixed strings to a byte array.
struct ByteWriter {
    var bytes: [UInt8] = []

    init(capacity: Int = 512) {
        bytes.reserveCapacity(capacity)
    }

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func u32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func u64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

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

/// Reads what ``ByteWriter`` wrote, bounds-checked: damaged input is an error, never a crash.
struct ByteReader {
    let buffer: UnsafeRawBufferPointer
    var position = 0

    init(_ buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
    }

    var isAtEnd: Bool { position == buffer.count }

    private static func damaged() -> CacheChainError {
        CacheChainError(.integrityCheckFailed, "a disk cache entry's metadata is malformed")
    }

    mutating func u8() throws(CacheChainError) -> UInt8 {
        guard position < buffer.count else { throw Self.damaged() }
        defer { position += 1 }
        return buffer[position]
    }

    mutating func u32() throws(CacheChainError) -> UInt32 {
        guard buffer.count - position >= 4 else { throw Self.damaged() }
        defer { position += 4 }
        return UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: position, as: UInt32.self))
    }

    mutating func u64() throws(CacheChainError) -> UInt64 {
        guard buffer.count - position >= 8 else { throw Self.damaged() }
        defer { position += 8 }
        return UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: position, as: UInt64.self))
    }

    mutating func data() throws(CacheChainError) -> UnsafeRawBufferPointer {
        let count = Int(try u32())
        guard buffer.count - position >= count else { throw Self.damaged() }
        defer { position += count }
        return UnsafeRawBufferPointer(rebasing: buffer[position..<position + count])
    }

    mutating func string() throws(CacheChainError) -> String {
        String(decoding: try data(), as: UTF8.self)
    }

    mutating func optionalString() throws(CacheChainError) -> String? {
        switch try u8() {
        case 0: return nil
        case 1: return try string()
        default: throw Self.damaged()
        }
    }
}
