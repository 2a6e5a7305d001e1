/// An envelope's 32-byte random salt as four words: the memo key of ``DerivedKeyCache``, hashed and
/// compared in a few instructions (an `[UInt8]` key is hashed byte by byte and compared generically).
struct EnvelopeSalt: Hashable, Sendable {
    private let words: (first: UInt64, second: UInt64, third: UInt64, fourth: UInt64)

    /// The salt of `bytes`, or `nil` when they are not exactly ``EnvelopeHeader/saltByteCount`` long.
    init?(_ bytes: [UInt8]) {
        guard bytes.count == EnvelopeHeader.saltByteCount else { return nil }
        self = bytes.withUnsafeBytes { EnvelopeSalt(in: $0, at: 0) }
    }

    /// The salt in `bytes` at `offset`, which must be followed by at least ``EnvelopeHeader/saltByteCount`` bytes.
    init(in bytes: UnsafeRawBufferPointer, at offset: Int) {
        precondition(offset >= 0 && bytes.count - offset >= EnvelopeHeader.saltByteCount, "salt out of bounds")
        words = (
            bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self),
            bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self)
        )
    }

    static func == (left: EnvelopeSalt, right: EnvelopeSalt) -> Bool {
        left.words == right.words
    }

    /// Hashes the first word only: salts are uniformly random (and the hasher is seeded per process), so
    /// one word spreads them as well as four; `==` still compares all of them.
    func hash(into hasher: inout Hasher) {
        hasher.combine(words.first)
    }
}
