#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes every byte of `bytes` to `descriptor` with `write(2)`, retrying a write interrupted by a signal
/// (`EINTR`).
/// - Parameters:
///   - bytes: The bytes to write.
///   - descriptor: The open file descriptor.
/// - Returns: `nil` once every byte is written, else the `errno` of the write that failed.
package func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32? {
    var offset = 0
    while offset < bytes.count {
        let written = write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
        if written < 0 {
            if errno == EINTR { continue }
            return errno
        }
        offset += written
    }
    return nil
}
