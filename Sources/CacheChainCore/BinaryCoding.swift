/// The byte order of a binary format's integers.
package enum BinaryByteOrder: Sendable {
    /// Least significant byte first (the disk format).
    case littleEndian
    /// Most significant byte first (the encrypted envelope format).
    case bigEndian
}

/// Appends integers, in a format's byte order, and length-prefixed byte strings to a byte array: the writing
/// half of the binary formats of the disk storage and the encryption plugin.
package struct BinaryWriter {
    /// What was written.
    package private(set) var bytes: [UInt8] = []
    private let byteOrder: BinaryByteOrder

    /// Creates an empty writer.
    /// - Parameters:
    ///   - byteOrder: The byte order of integers.
    ///   - capacity: Bytes to reserve.
    package init(byteOrder: BinaryByteOrder, capacity: Int = 512) {
        self.byteOrder = byteOrder
        bytes.reserveCapacity(capacity)
    }

    /// Appends one byte.
    package mutating func u8(_ value: UInt8) { bytes.append(value) }

    /// Appends a 32-bit integer.
    package mutating func u32(_ value: UInt32) {
        withUnsafeBytes(of: byteOrder == .littleEndian ? value.littleEndian : value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// Appends a 64-bit integer.
    package mutating func u64(_ value: UInt64) {
        withUnsafeBytes(of: byteOrder == .littleEndian ? value.littleEndian : value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// Appends bytes as they are, without a length.
    package mutating func raw(_ value: some Collection<UInt8>) { bytes.append(contentsOf: value) }

    /// Appends a 32-bit length, then the bytes.
    package mutating func data(_ value: some Collection<UInt8>) {
        u32(UInt32(value.count))
        bytes.append(contentsOf: value)
    }

    /// Appends a string's UTF-8 bytes with their length.
    package mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { data($0) }
    }

    /// Appends a presence byte (0 or 1), then the string when present.
    package mutating func optionalString(_ value: String?) {
        if let value {
            u8(1)
            string(value)
        } else {
            u8(0)
        }
    }
}

/// Reads what ``BinaryWriter`` wrote in little-endian order (the disk format), bounds-checked: damaged input is
/// an `integrity-check-failed` error naming what was being read, never a crash.
package struct BinaryReader {
    private let buffer: UnsafeRawBufferPointer
    private let subject: String
    /// The offset of the next byte to read.
    private var position = 0

    /// Creates a reader.
    /// - Parameters:
    ///   - buffer: The bytes; they must outlive the reader.
    ///   - subject: What the bytes are, for errors (e.g. "a disk cache entry's metadata").
    package init(_ buffer: UnsafeRawBufferPointer, subject: String) {
        self.buffer = buffer
        self.subject = subject
    }

    /// Whether every byte was read.
    package var isAtEnd: Bool { position == buffer.count }

    /// How many bytes are left (an upper bound for counts read from the input).
    package var remainingCount: Int { buffer.count - position }

    /// The error for damaged input, naming the subject and what was wrong.
    /// - Parameter what: The part that could not be read, or `nil`.
    /// - Returns: An `integrity-check-failed` error.
    package func malformed(_ what: String? = nil) -> CacheChainError {
        CacheChainError(.integrityCheckFailed, "\(subject) is malformed" + (what.map { " (\($0))" } ?? ""))
    }

    /// Reads one byte.
    package mutating func u8() throws(CacheChainError) -> UInt8 {
        guard position < buffer.count else { throw malformed() }
        defer { position += 1 }
        return buffer[position]
    }

    /// Reads a 32-bit integer.
    package mutating func u32() throws(CacheChainError) -> UInt32 {
        guard buffer.count - position >= 4 else { throw malformed() }
        defer { position += 4 }
        return UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: position, as: UInt32.self))
    }

    /// Reads a 64-bit integer.
    package mutating func u64() throws(CacheChainError) -> UInt64 {
        guard buffer.count - position >= 8 else { throw malformed() }
        defer { position += 8 }
        return UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: position, as: UInt64.self))
    }

    /// Reads a 32-bit length, then that many bytes.
    package mutating func data() throws(CacheChainError) -> UnsafeRawBufferPointer {
        let count = Int(try u32())
        guard buffer.count - position >= count else { throw malformed() }
        defer { position += count }
        return UnsafeRawBufferPointer(rebasing: buffer[position..<position + count])
    }

    /// Reads a length-prefixed UTF-8 string.
    package mutating func string() throws(CacheChainError) -> String {
        String(decoding: try data(), as: UTF8.self)
    }

    /// Reads a presence byte, then the string when present.
    package mutating func optionalString() throws(CacheChainError) -> String? {
        switch try u8() {
        case 0: return nil
        case 1: return try string()
        default: throw malformed()
        }
    }
}
