import CacheChain
public import Logging

/// Drives a ``BatchSession``: reads lines, writes protocol lines through one ``BatchOutput``, and performs
/// requests concurrently, each writing its own reply when it completes (a slow origin delays only its own
/// reply).
///
/// At most ``maximumInFlight`` requests are performed at a time: with that many in flight the runner reads
/// no further line until one of them is answered. Thousands of request lines sent at once then become a
/// steady stream of requests rather than thousands of simultaneous connections, which an origin may refuse
/// and whose waiting would count against every request's timeout.
///
/// A request keeps its slot until its reply has been written (``BatchOutput/writeAndWait(line:)``), and the
/// reading loop writes its own lines (the hello, errors) the same way: a peer that reads its replies slowly,
/// or not at all, stops the runner from reading its input instead of making replies pile up in memory. With
/// ``maximumInFlight`` 0 there is no such bound.
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
    /// The most requests performed at the same time; 0 means no limit.
    public let maximumInFlight: Int

    /// The default of ``maximumInFlight``: 8, so that replies take at most about 8 × 3 × 8 MiB = 192 MiB with
    /// the default ``BatchBodyLimit`` (a helper process that test suites start runs in small containers); raise it
    /// (`--max-in-flight`) for more concurrency, lower `--max-inline-body` to keep the bound.
    public static let defaultMaximumInFlight = 8

    /// Creates a runner.
    /// - Parameters:
    ///   - executor: Performs the requests.
    ///   - hello: The hello line.
    ///   - logger: The logger for operator notes.
    ///   - maximumInFlight: The most requests performed at the same time; 0 for no limit (every request line
    ///     is performed as soon as it is read). Negative values read as 0.
    public init(
        executor: BatchExecutor,
        hello: BatchHello,
        logger: Logger,
        maximumInFlight: Int = BatchRunner.defaultMaximumInFlight
    ) {
        self.executor = executor
        self.hello = hello
        self.logger = logger
        self.maximumInFlight = max(0, maximumInFlight)
    }

    /// Runs the protocol until `end` or the end of the input.
    /// - Parameters:
    ///   - lines: The input lines, without line breaks.
    ///   - output: Where protocol lines go.
    public func run(lines: some AsyncSequence<[UInt8], Never>, output: some BatchOutput) async {
        var session = BatchSession(hello: hello)
        let executor = self.executor
        let logger = self.logger
        let limit = maximumInFlight > 0 ? InFlightLimit(maximumInFlight) : nil
        await withDiscardingTaskGroup { group in
            reading: for await line in lines {
                for action in session.receive(line: line) {
                    switch action {
                    case .write(let text):
                        await output.writeAndWait(line: text)  // a peer that does not read stops the reading
                    case .note(let text):
                        logger.notice("\(text)")
                    case .perform(let request):
                        await limit?.acquire()
                        group.addTask {
                            let reply = await executor.reply(to: request)
                            await output.writeAndWait(line: reply.jsonLine)
                            limit?.release()  // only once the reply is out: back-pressure from stdout to stdin
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
