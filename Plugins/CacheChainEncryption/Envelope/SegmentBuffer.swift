internal import COpenSSL

/// A scratch buffer for up to one segment's bytes, wiped and freed on release (it may hold plaintext).
///
/// It starts at the size the caller expects to need (a small entry never allocates a whole segment) and
/// grows to `limit` on demand; only the bytes ever written are wiped.
final class SegmentBuffer {
    private(set) var bytes: UnsafeMutableRawBufferPointer
    /// The most bytes the buffer holds: one (sealed) segment.
    let limit: Int
    var count = 0
    private var used = 0

    init(limit: Int, expected: Int) {
        self.limit = limit
        bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, min(limit, expected)), alignment: 16)
    }

    var isFull: Bool { count == limit }
    var filled: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: bytes[0..<count]) }

    /// Makes room for `capacity` bytes (at most `limit`) and returns the writable region.
    func reserve(_ capacity: Int) -> UnsafeMutableRawBufferPointer {
        precondition(capacity <= limit, "a segment buffer never holds more than a segment")
        if capacity > bytes.count {
            let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: limit, alignment: 16)
            grown.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[0..<count]))
            release()
            bytes = grown
        }
        used = max(used, capacity)
        return UnsafeMutableRawBufferPointer(rebasing: bytes[0..<capacity])
    }

    /// Copies as much of `input` as fits under `limit`; returns how many bytes were taken.
    func fill(from input: UnsafeRawBufferPointer) -> Int {
        let taken = min(limit - count, input.count)
        guard taken > 0 else { return 0 }
        let region = reserve(count + taken)
        UnsafeMutableRawBufferPointer(rebasing: region[count...]).copyMemory(from: UnsafeRawBufferPointer(rebasing: input[0..<taken]))
        count += taken
        return taken
    }

    private func release() {
        cachechain_cleanse(bytes.baseAddress, used)
        bytes.deallocate()
    }

    deinit {
        release()
    }
}
