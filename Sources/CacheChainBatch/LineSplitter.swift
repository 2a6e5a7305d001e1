/// Splits a byte stream into lines at `\n`, dropping the line break (and a `\r` before it).
///
/// A value type fed chunk by chunk, so it is tested without a file descriptor.
public struct LineSplitter: Sendable {
    private var pending: [UInt8] = []

    /// Creates an empty splitter.
    public init() {}

    /// Adds bytes and returns the lines they complete.
    /// - Parameter bytes: The next bytes of the stream.
    /// - Returns: The complete lines, in order, without their line breaks.
    /// - Complexity: O(*n*) in the number of bytes added plus the bytes held from earlier chunks.
    public mutating func append(_ bytes: some Collection<UInt8>) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
                lines.append(pending)
                pending.removeAll(keepingCapacity: true)
            } else {
                pending.append(byte)
            }
        }
        return lines
    }

    /// Ends the stream.
    /// - Returns: The last line when the stream did not end with a line break, else `nil`.
    public mutating func finish() -> [UInt8]? {
        defer { pending = [] }
        if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
        return pending.isEmpty ? nil : pending
    }
}
