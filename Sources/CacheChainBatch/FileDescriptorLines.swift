import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The lines of a file descriptor (stdin), read by a dedicated thread so the blocking `read(2)` never
/// occupies Swift's cooperative pool.
public enum FileDescriptorLines {
    /// Starts reading a file descriptor until end of file (or a read error) and returns its lines.
    /// - Parameter descriptor: The descriptor; `0` (stdin) by default. It is not closed.
    /// - Returns: The lines, without line breaks; the stream finishes at end of input.
    public static func lines(of descriptor: Int32 = 0) -> AsyncStream<[UInt8]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        let thread = Thread {
            var splitter = LineSplitter()
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                for line in splitter.append(buffer[0..<count]) { continuation.yield(line) }
            }
            if let last = splitter.finish() { continuation.yield(last) }
            continuation.finish()
        }
        thread.name = "cachechain-batch-input"
        thread.start()
        return stream
    }
}
