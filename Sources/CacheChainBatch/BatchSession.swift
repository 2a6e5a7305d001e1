/// The batch protocol (version 1) as a state machine: it takes input lines and returns what to do, with no
/// I/O of its own, so it is tested without a process.
///
/// ```
///  awaiting hello ──first non-blank line──▶ running ──{"type":"end"} or end of input──▶ finished
///        │ writes our hello first,             │ request  → perform (one reply line each)
///        │ then handles that line              │ invalid  → {"id":N,"error":…}
///        ▼                                     │ malformed→ {"type":"error","line":N,…}
/// ```
/// Our hello is always the first line written, exactly once: in answer to the caller's hello, or before
/// handling the first line when the caller sent none. Lines are numbered from 1, blank ones included.
public struct BatchSession: Sendable {
    /// What the driver does next.
    public enum Action: Sendable, Hashable {
        /// Write this protocol line (the driver adds the line break).
        case write(String)
        /// Perform this request and write its reply line when it completes.
        case perform(BatchRequest)
        /// Tell the operator something on stderr (never stdout).
        case note(String)
        /// Stop reading: finish the requests in flight, flush, exit 0.
        case finish
    }

    private enum State: Sendable {
        case awaitingHello, running, finished
    }

    private let hello: BatchHello
    private var state = State.awaitingHello
    /// The number of lines received so far.
    public private(set) var lineNumber = 0

    /// Creates a session.
    /// - Parameter hello: The hello line this session answers with.
    public init(hello: BatchHello) {
        self.hello = hello
    }

    /// Whether the session has ended (after `end` or end of input); later lines are ignored.
    public var isFinished: Bool { state == .finished }

    /// Handles one input line.
    /// - Parameter line: The line's bytes, without its line break.
    /// - Returns: The actions, in order.
    public mutating func receive(line: some Collection<UInt8>) -> [Action] {
        guard !isFinished else { return [] }
        lineNumber += 1
        let input = BatchInput(line: line)
        if case .blank = input { return [] }
        var actions: [Action] = []
        if case .awaitingHello = state {
            state = .running
            actions.append(.write(hello.jsonLine))
            guard case .hello(let version) = input else {
                actions.append(.note("line \(lineNumber): no hello first; answered with ours and carried on"))
                return actions + handle(input)
            }
            if let version, version != BatchHello.protocolVersion {
                let speaks = BatchHello.protocolVersion
                actions.append(.write(errorLine("protocol \(version) is not supported: this cachechain speaks protocol \(speaks)")))
            }
            return actions
        }
        return handle(input)
    }

    /// Handles the end of the input.
    /// - Returns: ``Action/finish`` unless the session had already finished.
    public mutating func endOfInput() -> [Action] {
        guard !isFinished else { return [] }
        state = .finished
        return [.finish]
    }

    private mutating func handle(_ input: BatchInput) -> [Action] {
        switch input {
        case .blank: return []
        case .hello: return [.write(errorLine("hello was already answered"))]
        case .request(let request): return [.perform(request)]
        case .invalidRequest(let id, let error):
            return [.write(BatchReply(id: id, outcome: .error(error.message)).jsonLine)]
        case .malformed(let error): return [.write(errorLine(error.message))]
        case .end:
            state = .finished
            return [.finish]
        }
    }

    private func errorLine(_ message: String) -> String {
        JSONValue.object([
            .init("type", .string("error")),
            .init("line", .integer(Int64(lineNumber))),
            .init("error", .string(message)),
        ]).jsonText
    }
}
