/// Where protocol lines go: one writer, so lines never interleave.
///
/// ``FileDescriptorOutput`` writes to stdout; tests collect lines in memory.
public protocol BatchOutput: Sendable {
    /// Queues one protocol line; the writer adds the line break and writes the line whole.
    /// - Parameter line: The line, without a line break.
    func write(line: String)

    /// Returns once every line queued so far has been written.
    func flush() async
}
