import CacheChainCore

/// Streaming decoder of an envelope's segments, the inverse of ``SegmentSealer``: sealed bytes go in, in
/// chunks of any size, and authenticated plaintext comes out through `emit`, one segment at a time, so
/// memory stays bounded by one segment. Nothing is emitted before its segment's tag is verified.
///
/// A full segment is opened as non-final only once a following byte arrives; whatever is left at
/// ``finish(emit:)`` must open as the final segment, so a truncated entry (cut at any byte, including a
/// segment boundary) fails.
final class SegmentOpener {
    private let context: AESGCMContext
    private let header: EnvelopeHeader
    private var aad: [UInt8]
    private var nonce: [UInt8] = []
    private let pending: SegmentBuffer
    private let plaintext: SegmentBuffer
    private var index: UInt32 = 0
    private var isFinished = false

    /// The plaintext bytes per segment.
    var segmentSize: Int { header.segmentSize }

    /// - Parameter expectedCount: The sealed size expected after the header (sizes the buffers).
    init(subkey: SecureBytes, header: EnvelopeHeader, aadPrefix: [UInt8], expectedCount: Int = .max) throws(CacheChainError) {
        context = try subkey.withBytes { (key) throws(CacheChainError) in try AESGCMContext(key: key, encrypting: false) }
        self.header = header
        aad = aadPrefix + [0, 0, 0, 0, 0]
        pending = SegmentBuffer(limit: header.segmentSize + AES256GCM.tagByteCount, expected: expectedCount)
        plaintext = SegmentBuffer(limit: header.segmentSize, expected: expectedCount)
    }

    /// Adds sealed bytes; emits the plaintext of every segment now known not to be the last.
    func append(_ input: UnsafeRawBufferPointer, emit: (UnsafeRawBufferPointer) throws(CacheChainError) -> Void) throws(CacheChainError) {
        guard !isFinished else { throw Self.damaged("bytes follow the final segment") }
        var offset = 0
        let sealedSize = header.segmentSize + AES256GCM.tagByteCount
        while offset < input.count {
            if pending.isFull {
                try open(pending.filled, final: false, emit: emit)
                pending.count = 0
            }
            if pending.count == 0, input.count - offset > sealedSize {
                try open(UnsafeRawBufferPointer(rebasing: input[offset..<offset + sealedSize]), final: false, emit: emit)
                offset += sealedSize
                continue
            }
            offset += pending.fill(from: UnsafeRawBufferPointer(rebasing: input[offset...]))
        }
    }

    /// Opens what is left as the final segment.
    /// - Throws: ``CacheChainError/Code/integrityCheckFailed`` when the entry was truncated or altered.
    func finish(emit: (UnsafeRawBufferPointer) throws(CacheChainError) -> Void) throws(CacheChainError) {
        guard pending.count >= AES256GCM.tagByteCount else { throw Self.damaged("it is truncated") }
        try open(pending.filled, final: true, emit: emit)
        isFinished = true
    }

    private func open(_ sealed: UnsafeRawBufferPointer, final: Bool, emit: (UnsafeRawBufferPointer) throws(CacheChainError) -> Void) throws(CacheChainError) {
        guard index < UInt32.max else { throw Self.damaged("it has too many segments") }
        SegmentAAD.set(&aad, index: index, final: final)
        header.nonce(forSegment: index, into: &nonce)
        let count = sealed.count - AES256GCM.tagByteCount
        let output = plaintext.reserve(count)
        do {
            try nonce.withBytes { (nonceBytes) throws(CacheChainError) in
                try aad.withBytes { (aadBytes) throws(CacheChainError) in
                    try context.open(
                        nonce: nonceBytes,
                        aad: aadBytes,
                        ciphertext: UnsafeRawBufferPointer(rebasing: sealed[0..<count]),
                        tag: UnsafeRawBufferPointer(rebasing: sealed[count...]),
                        plaintext: output
                    )
                }
            }
        } catch {
            throw Self.failedAuthentication(segment: index)
        }
        try emit(UnsafeRawBufferPointer(output))
        index += 1
    }

    /// The error of a segment whose tag does not match.
    static func failedAuthentication(segment index: UInt32) -> CacheChainError {
        damaged("segment \(index) failed authentication (wrong key, altered, truncated, reordered or moved)")
    }

    private static func damaged(_ why: String) -> CacheChainError {
        CacheChainError(.integrityCheckFailed, "an encrypted entry cannot be opened: \(why)")
    }
}
