/// Where protocol lines go: one writer, so lines never interleave.
///
/// ``FileDescriptorOutput`` writes to stdout; tests collect lines in memory.
public protocol BatchOutput: Sendable {
    /// Queues one protocol line; the writer adds the line break and writes the line whole.
    /// - Parameter line: The line, without a line break.
    func write(line: String)

    /// Writes one protocol line and returns once it has been written (or dropped after a write failure).
    ///
    /// ``BatchRunner`` writes every line this way, so a reader that stops reading stops the runner: it holds
    /// a request's in-flight slot until its reply is out, and reads no further input meanwhile. Memory then
    /// stays bounded however slowly the peer reads.
    /// - Parameter line: The line, without a line break.
    func writeAndWait(line: String) async

    /// Returns once every line queued so far has been written.
    func flush() async
}

extension BatchOutput {
    /// Default implementation: ``write(line:)``, then ``flush()``.
    /// - Parameter line: The line, without a line break.
    public func writeAndWait(line: String) async {
        write(line: line)
        await flush()
    }
}
