/// Why an input line could not be used: the text of an `{"type":"error","line":N,"error":"…"}` line, or
/// of an `{"id":N,"error":"…"}` reply when the line is a request whose `id` could be read.
public struct BatchLineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the line, in plain words.
    public var message: String

    /// Creates an error.
    /// - Parameter message: What is wrong.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
