import CacheChainCore
import Dispatch
import Synchronization

/// Writes protocol lines to a file descriptor (stdout) from one serial queue, off Swift's cooperative
/// pool: each line and its line break go out in one piece, in the order they were queued.
///
/// A write error (e.g. the reader closed the pipe: `EPIPE`, with `SIGPIPE` ignored) stops all further
/// writes; ``hasFailed`` tells.
public final class FileDescriptorOutput: BatchOutput {
    private let descriptor: Int32
    private let queue = DispatchQueue(label: "cachechain.batch.output")
    private let failed = Atomic(false)

    /// Creates a writer.
    /// - Parameter descriptor: The file descriptor; `1` (stdout) by default. It is not closed.
    public init(descriptor: Int32 = 1) {
        self.descriptor = descriptor
    }

    /// Whether a write has failed (later lines are dropped).
    public var hasFailed: Bool { failed.load(ordering: .acquiring) }

    /// Queues one line.
    /// - Parameter line: The line, without a line break.
    public func write(line: String) {
        enqueue(line)
    }

    /// Writes one line and returns once it has been written (or dropped after a failure), in order with the
    /// lines queued before it.
    /// - Parameter line: The line, without a line break.
    public func writeAndWait(line: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            enqueue(line) { continuation.resume() }
        }
    }

    /// Returns once every queued line has been written (or dropped after a failure).
    public func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { continuation.resume() }
        }
    }

    /// Queues `line` and its line break on the output queue, then `done` (run also when the line is dropped).
    private func enqueue(_ line: String, then done: (@Sendable () -> Void)? = nil) {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        queue.async { [self, bytes] in
            if !hasFailed, bytes.withUnsafeBytes({ writeAll($0, to: descriptor) }) != nil {
                failed.store(true, ordering: .releasing)
            }
            done?()
        }
    }
}
