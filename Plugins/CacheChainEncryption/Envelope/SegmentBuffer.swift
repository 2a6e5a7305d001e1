internal import COpenSSL

/// A fixed-size scratch buffer for segment bytes, wiped and freed on release (it may hold plaintext).
final class SegmentBuffer {
    let bytes: UnsafeMutableRawBufferPointer
    var count = 0

    init(capacity: Int) {
        bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, capacity), alignment: 16)
    }

    var capacity: Int { bytes.count }
    var isFull: Bool { count == bytes.count }
    var filled: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: bytes[0..<count]) }

    /// Copies as much of `input` as fits; returns how many bytes were taken.
    func fill(from input: UnsafeRawBufferPointer) -> Int {
        let taken = min(bytes.count - count, input.count)
        if taken > 0, let source = input.baseAddress, let destination = bytes.baseAddress {
            (destination + count).copyMemory(from: source, byteCount: taken)
        }
        count += taken
        return taken
    }

    func wipe() {
        cachechain_cleanse(bytes.baseAddress, bytes.count)
    }

    deinit {
        wipe()
        bytes.deallocate()
    }
}
