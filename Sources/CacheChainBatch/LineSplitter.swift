/// Splits a byte stream into lines at `\n`, dropping the line break (and a `\r` before it), with a limit on
/// how long a line may grow.
///
/// A value type fed chunk by chunk, so it is tested without a file descriptor. A line longer than
/// ``maximumLineLength`` is not kept: its bytes are dropped as they arrive (memory stays bounded) and it is
/// returned as an *overlong-line marker* — a NUL byte followed by the line's length in decimal, which no JSON
/// line can be — that ``BatchInput`` turns into an error line. ``overlongLineLength(_:)`` reads the marker.
public struct LineSplitter: Sendable {
    /// The default limit: 64 MiB, far above any request line (bodies are strings inside it).
    public static let defaultMaximumLineLength = 64 << 20

    /// The longest line kept, in bytes (without the line break).
    public let maximumLineLength: Int
    private var pending: [UInt8] = []
    /// The length so far of a line being dropped for being too long; `nil` otherwise.
    private var overflowLength: Int?

    /// Creates an empty splitter.
    /// - Parameter maximumLineLength: The longest line kept; longer ones become overlong-line markers.
    public init(maximumLineLength: Int = LineSplitter.defaultMaximumLineLength) {
        self.maximumLineLength = max(1, maximumLineLength)
    }

    /// Adds bytes and returns the lines they complete.
    /// - Parameter bytes: The next bytes of the stream.
    /// - Returns: The complete lines, in order, without their line breaks (overlong ones as markers).
    /// - Complexity: O(*n*) in the number of bytes added plus the bytes held from earlier chunks.
    public mutating func append(_ bytes: some Collection<UInt8>) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                lines.append(takeLine())
            } else if let length = overflowLength {
                overflowLength = length + 1
            } else if pending.count == maximumLineLength {
                overflowLength = pending.count + 1
                pending = []   // release the memory at once
            } else {
                pending.append(byte)
            }
        }
        return lines
    }

    /// Ends the stream.
    /// - Returns: The last line when the stream did not end with a line break, else `nil`.
    public mutating func finish() -> [UInt8]? {
        guard overflowLength != nil || !pending.isEmpty else { return nil }
        let line = takeLine()
        return line.isEmpty ? nil : line
    }

    /// The length of the overlong line a marker stands for, or `nil` when `line` is an ordinary line.
    /// - Parameter line: A line returned by ``append(_:)`` or ``finish()``.
    /// - Returns: The dropped line's length in bytes.
    public static func overlongLineLength(_ line: some Collection<UInt8>) -> Int? {
        guard line.first == 0, line.count > 1 else { return nil }
        return Int(String(decoding: line.dropFirst(), as: UTF8.self))
    }

    private mutating func takeLine() -> [UInt8] {
        if let length = overflowLength {
            overflowLength = nil
            pending.removeAll(keepingCapacity: false)
            return [0] + Array(String(length).utf8)
        }
        if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
        defer { pending.removeAll(keepingCapacity: true) }
        return pending
    }
}
