import CacheChain
public import Logging

/// Drives a ``BatchSession``: reads lines, writes protocol lines through one ``BatchOutput``, and performs
/// requests concurrently, each writing its own reply when it completes (a slow origin delays only its own
/// reply).
///
/// On `{"type":"end"}` or end of input it stops reading, waits for the requests in flight and for the
/// client's background revalidations, and flushes the output.
public struct BatchRunner: Sendable {
    /// Performs the requests.
    public let executor: BatchExecutor
    /// The hello line to answer with.
    public let hello: BatchHello
    /// Where notes for the operator go (stderr in `cachechain`); never protocol lines.
    public let logger: Logger

    /// Creates a runner.
    /// - Parameters:
    ///   - executor: Performs the requests.
    ///   - hello: The hello line.
    ///   - logger: The logger for operator notes.
    public init(executor: BatchExecutor, hello: BatchHello, logger: Logger) {
        self.executor = executor
        self.hello = hello
        self.logger = logger
    }

    /// Runs the protocol until `end` or the end of the input.
    /// - Parameters:
    ///   - lines: The input lines, without line breaks.
    ///   - output: Where protocol lines go.
    public func run(lines: some AsyncSequence<[UInt8], Never>, output: some BatchOutput) async {
        var session = BatchSession(hello: hello)
        let executor = self.executor
        let logger = self.logger
        await withDiscardingTaskGroup { group in
            reading: for await line in lines {
                for action in session.receive(line: line) {
                    switch action {
                    case .write(let text):
                        output.write(line: text)
                    case .note(let text):
                        logger.notice("\(text)")
                    case .perform(let request):
                        group.addTask {
                            let reply = await executor.reply(to: request)
                            output.write(line: reply.jsonLine)
                        }
                    case .finish:
                        break reading
                    }
                }
            }
            _ = session.endOfInput()
            logger.debug(
                "input finished; waiting for the requests in flight",
                metadata: ["lines": "\(session.lineNumber)"]
            )
        }
        await executor.client.waitForBackgroundRevalidations()
        await output.flush()
    }
}
