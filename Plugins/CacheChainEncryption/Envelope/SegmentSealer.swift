import CacheChainCore

/// Streaming encoder of an envelope's segments: plaintext goes in, in chunks of any size, and sealed
/// segments come out through `emit`, so memory stays bounded by one segment whatever the entry's size.
///
/// Segment `i` is sealed with the header's nonce XOR `i` and the associated data
/// `prefix · i (4 bytes) · final flag (1 byte)`, where the prefix is the header plus the entry's names.
/// The last segment, and only it, carries the final flag: a reader detects truncation (the last segment
/// left is not final), reordering and swapping (wrong index or entry in the associated data and nonce).
/// A full segment is only sealed once the next byte arrives, so that the final flag is always known.
final class SegmentSealer {
    private let context: AESGCMContext
    private let header: EnvelopeHeader
    private var aad: [UInt8]
    private var nonce: [UInt8] = []
    private let pending: SegmentBuffer
    private let output: SegmentBuffer
    private var index: UInt32 = 0

    /// Creates a sealer under an entry subkey.
    /// - Parameter expectedCount: The plaintext size expected (sizes the buffers; more is still accepted).
    init(subkey: SecureBytes, header: EnvelopeHeader, aadPrefix: [UInt8], expectedCount: Int = .max) throws(CacheChainError) {
        context = try subkey.withBytes { (key) throws(CacheChainError) in try AESGCMContext(key: key, encrypting: true) }
        self.header = header
        aad = aadPrefix + [0, 0, 0, 0, 0]
        pending = SegmentBuffer(limit: header.segmentSize, expected: expectedCount)
        output = SegmentBuffer(limit: header.segmentSize + AES256GCM.tagByteCount, expected: expectedCount &+ AES256GCM.tagByteCount)
    }

    /// The sealed size of `plaintextCount` bytes (without the header).
    static func sealedByteCount(plaintextCount: Int, segmentSize: Int) -> Int {
        let segments = max(1, (plaintextCount + segmentSize - 1) / segmentSize)
        return plaintextCount + segments * AES256GCM.tagByteCount
    }

    /// Adds plaintext; emits every segment that is now known not to be the last.
    func append(_ input: UnsafeRawBufferPointer, emit: (UnsafeRawBufferPointer) throws(CacheChainError) -> Void) throws(CacheChainError) {
        var offset = 0
        let size = header.segmentSize
        while offset < input.count {
            if pending.isFull {
                try seal(pending.filled, final: false, emit: emit)
                pending.count = 0
            }
            if pending.count == 0, input.count - offset > size {
                try seal(UnsafeRawBufferPointer(rebasing: input[offset..<offset + size]), final: false, emit: emit)
                offset += size
                continue
            }
            offset += pending.fill(from: UnsafeRawBufferPointer(rebasing: input[offset...]))
        }
    }

    /// Seals what is left as the final segment.
    func finish(emit: (UnsafeRawBufferPointer) throws(CacheChainError) -> Void) throws(CacheChainError) {
        try seal(pending.filled, final: true, emit: emit)
        pending.count = 0
    }

    private func seal(_ plaintext: UnsafeRawBufferPointer, final: Bool, emit: (UnsafeRawBufferPointer) throws(CacheChainError) -> Void) throws(CacheChainError) {
        guard index < UInt32.max else { throw CacheChainError(.storageFailed, "an entry is too large to encrypt (2³² segments)") }
        SegmentAAD.set(&aad, index: index, final: final)
        header.nonce(forSegment: index, into: &nonce)
        let count = plaintext.count
        let region = output.reserve(count + AES256GCM.tagByteCount)
        try nonce.withBytes { (nonceBytes) throws(CacheChainError) in
            try aad.withBytes { (aadBytes) throws(CacheChainError) in
                try context.seal(
                    nonce: nonceBytes,
                    aad: aadBytes,
                    plaintext: plaintext,
                    ciphertext: UnsafeMutableRawBufferPointer(rebasing: region[0..<count]),
                    tag: UnsafeMutableRawBufferPointer(rebasing: region[count...])
                )
            }
        }
        try emit(UnsafeRawBufferPointer(region))
        index += 1
    }
}

/// The last five bytes of a segment's associated data: its index and final flag.
enum SegmentAAD {
    static func set(_ aad: inout [UInt8], index: UInt32, final: Bool) {
        let end = aad.count
        aad[end - 5] = UInt8(truncatingIfNeeded: index >> 24)
        aad[end - 4] = UInt8(truncatingIfNeeded: index >> 16)
        aad[end - 3] = UInt8(truncatingIfNeeded: index >> 8)
        aad[end - 2] = UInt8(truncatingIfNeeded: index)
        aad[end - 1] = final ? 1 : 0
    }
}
