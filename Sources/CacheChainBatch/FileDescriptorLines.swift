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
///
/// The thread reads a duplicate of the descriptor (`F_DUPFD_CLOEXEC`) and closes it when it ends, so the caller may close
/// its own descriptor at any time: the thread never reads a descriptor number that has been closed and reused
/// for another file or socket.
public enum FileDescriptorLines {
    /// The default of `bufferedLines`.
    public static let defaultBufferedLines = 1024

    /// Starts reading a file descriptor until end of file (or a read error) and returns its lines.
    /// - Parameters:
    ///   - descriptor: The descriptor; `0` (stdin) by default. It is not closed (the thread closes its duplicate).
    ///   - bufferedLines: How many lines may be read ahead of the consumer (at least 1).
    /// - Returns: The lines, without line breaks; the stream finishes at end of input. Cancelling the task
    ///   that iterates it stops the reading thread.
    public static func lines(
        of descriptor: Int32 = 0,
        bufferedLines: Int = FileDescriptorLines.defaultBufferedLines
    ) -> AsyncStream<[UInt8]> {
        let queue = BoundedLineQueue(capacity: bufferedLines)
        // Close-on-exec, so that child processes do not inherit it. Without a free descriptor for the duplicate
        // (EMFILE), the caller's own descriptor is read.
        let duplicate = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        let source = duplicate >= 0 ? duplicate : descriptor
        let thread = Thread {
            defer { if duplicate >= 0 { close(duplicate) } }
            var splitter = LineSplitter()
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            var consumerIsGone = false
            reading: while true {
                let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
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
