/// An envelope's 32-byte random salt as four words: the memo key of ``DerivedKeyCache``, hashed and
/// compared in a few instructions (an `[UInt8]` key is hashed byte by byte and compared generically).
struct EnvelopeSalt: Hashable, Sendable {
    private let words: (first: UInt64, second: UInt64, third: UInt64, fourth: UInt64)

    /// The salt of `bytes`, or `nil` when they are not exactly ``EnvelopeHeader/saltByteCount`` long.
    init?(_ bytes: [UInt8]) {
        guard bytes.count == EnvelopeHeader.saltByteCount else { return nil }
        words = bytes.withUnsafeBytes { raw in
            (
                raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
            )
        }
    }

    static func == (left: EnvelopeSalt, right: EnvelopeSalt) -> Bool {
        left.words == right.words
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(words.first)
        hasher.combine(words.second)
        hasher.combine(words.third)
        hasher.combine(words.fourth)
    }
}
