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
///
/// The thread reads ahead at most `bufferedLines` lines (plus one 64 KiB read): while that many wait to be
/// consumed it stops reading, and the writer on the other end is held back by the pipe. A caller that pipes a
/// million request lines into `cachechain batch` then costs memory for the requests in flight, not for its
/// whole input.
public enum FileDescriptorLines {
    /// The default of `bufferedLines`.
    public static let defaultBufferedLines = 1024

    /// Starts reading a file descriptor until end of file (or a read error) and returns its lines.
    /// - Parameters:
    ///   - descriptor: The descriptor; `0` (stdin) by default. It is not closed.
    ///   - bufferedLines: How many lines may be read ahead of the consumer (at least 1).
    /// - Returns: The lines, without line breaks; the stream finishes at end of input. Cancelling the task
    ///   that iterates it stops the reading thread.
    public static func lines(
        of descriptor: Int32 = 0,
        bufferedLines: Int = FileDescriptorLines.defaultBufferedLines
    ) -> AsyncStream<[UInt8]> {
        let queue = BoundedLineQueue(capacity: bufferedLines)
        let thread = Thread {
            var splitter = LineSplitter()
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            var consumerIsGone = false
            reading: while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                for line in splitter.append(buffer[0..<count]) {
                    guard queue.push(line) else {
                        consumerIsGone = true
                        break reading
                    }
                }
            }
            if !consumerIsGone, let last = splitter.finish() { _ = queue.push(last) }
            queue.finish()
        }
        thread.name = "cachechain-batch-input"
        thread.start()
        return AsyncStream(unfolding: { await queue.next() }, onCancel: { queue.cancel() })
    }
}
