import CacheChainCore
internal import COpenSSL

/// Key material in a buffer of its own, wiped with `OPENSSL_cleanse` when the last reference goes away.
///
/// The bytes never appear in a `description`, a debug description or a mirror. Written once in `init`,
/// read-only afterwards.
final class SecureBytes: @unchecked Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable { // invariant: the buffer is written only in init and only read afterwards; deinit runs once no reference is left
    private let buffer: UnsafeMutableRawBufferPointer

    /// Copies `bytes` into a fresh buffer.
    init(copying bytes: UnsafeRawBufferPointer) {
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, bytes.count), alignment: 16)
        if bytes.count > 0, let base = bytes.baseAddress, let destination = buffer.baseAddress {
            destination.copyMemory(from: base, byteCount: bytes.count)
        }
        count = bytes.count
    }

    /// Copies an array's bytes (the caller wipes its own copy when it is sensitive).
    init(_ bytes: [UInt8]) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, bytes.count), alignment: 16)
        bytes.withUnsafeBytes { source in buffer.copyMemory(from: source) }
        self.buffer = buffer
        count = bytes.count
    }

    /// Fills a fresh buffer through `initialize`, which receives the whole buffer.
    init(count: Int, initialize: (UnsafeMutableRawBufferPointer) throws(CacheChainError) -> Void) throws(CacheChainError) {
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, count), alignment: 16)
        self.count = count
        do {
            try initialize(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]))
        } catch {
            cachechain_cleanse(buffer.baseAddress, buffer.count)
            buffer.deallocate()
            throw error
        }
    }

    /// The number of bytes.
    let count: Int

    /// Gives read access to the bytes for the duration of `body`.
    func withBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
    }

    /// Compares in time independent of where the bytes differ.
    func isEqual(to other: SecureBytes) -> Bool {
        guard count == other.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<count { difference |= buffer[index] ^ other.buffer[index] }
        return difference == 0
    }

    var description: String { "SecureBytes(\(count) bytes)" }
    var debugDescription: String { description }
    var customMirror: Mirror { Mirror(self, children: ["count": count]) }

    deinit {
        cachechain_cleanse(buffer.baseAddress, buffer.count)
        buffer.deallocate()
    }
}
