import CacheChain
import CacheChainBatch
import CacheChainTesting
import Logging
import Synchronization
import Testing

/// A transport that holds every request until ``open()`` and records how many were held at once: a test double
/// for the one rule under test (how many requests the runner performs at the same time).
private final class HeldTransport: HTTPTransport {
    private struct State {
        var inFlight = 0
        var peak = 0
        var sent = 0
        var isOpen = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Requests being sent right now.
    var inFlight: Int { state.withLock { $0.inFlight } }
    /// The most requests that were being sent at once.
    var peak: Int { state.withLock { $0.peak } }
    /// Requests sent in all.
    var sent: Int { state.withLock { $0.sent } }

    /// Lets every held request and every later one through.
    func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    func send(_ request: PipelineRequest, context: InterceptorContext) async throws -> PipelineResponse {
        state.withLock { state in
            state.inFlight += 1
            state.sent += 1
            state.peak = max(state.peak, state.inFlight)
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let passes = state.withLock { state in
                if !state.isOpen { state.waiting.append(continuation) }
                return state.isOpen
            }
            if passes { continuation.resume() }
        }
        state.withLock { $0.inFlight -= 1 }
        return PipelineResponse(head: HTTPResponse(status: .ok), body: PipelineBody(string: "ok"))
    }
}

@Suite("Batch protocol: the limit on requests in flight")
struct BatchInFlightLimitTests {
    private let hello = BatchHello(version: "test", config: "held origin")

    /// Runs a session of `count` requests to distinct URLs over a held origin, waits until `expectedHeld` requests
    /// are held at the origin, lets them all through, and returns the origin and the protocol lines.
    private func session(count: Int, maximumInFlight: Int, expectedHeld: Int) async throws -> (HeldTransport, [String]) {
        let transport = HeldTransport()
        let client = HTTPCacheClient(transport: transport, configuration: .init(storage: MemoryStorage(capacity: 1 << 20)))
        let runner = BatchRunner(
            executor: BatchExecutor(client: client),
            hello: hello,
            logger: Logger(label: "test"),
            maximumInFlight: maximumInFlight
        )
        let output = CollectedOutput()
        let input = AsyncStream<[UInt8]> { continuation in
            continuation.yield(Array(#"{"type":"hello","protocol":1}"#.utf8))
            for id in 1...count {
                continuation.yield(Array(#"{"type":"request","id":\#(id),"url":"http://origin.test/r/\#(id)"}"#.utf8))
            }
            continuation.finish()
        }
        let running = Task { await runner.run(lines: input, output: output) }
        // Every line is available at once: without a limit the runner would start them all.
        try await waitUntil("\(expectedHeld) requests held at the origin") { transport.inFlight == expectedHeld }
        transport.open()
        await running.value
        return (transport, output.all)
    }

    @Test("with a limit of 2, six requests read at once reach the origin two at a time, and all are answered")
    func limited() async throws {
        let (transport, lines) = try await session(count: 6, maximumInFlight: 2, expectedHeld: 2)
        #expect(transport.peak == 2)
        #expect(transport.sent == 6)
        #expect(lines.count == 7)
        for id in 1...6 {
            #expect(lines.contains { $0.hasPrefix(#"{"id":\#(id),"status":200,"#) }, "no reply for request \(id)")
        }
    }

    @Test("with no limit (0), all six are at the origin at once")
    func unlimited() async throws {
        let (transport, lines) = try await session(count: 6, maximumInFlight: 0, expectedHeld: 6)
        #expect(transport.peak == 6)
        #expect(lines.count == 7)
    }

    @Test("the runner's limit defaults to 8 and negative limits read as none")
    func defaults() {
        let client = HTTPCacheClient(transport: HeldTransport())
        let executor = BatchExecutor(client: client)
        let logger = Logger(label: "test")
        #expect(BatchRunner(executor: executor, hello: hello, logger: logger).maximumInFlight == 8)
        #expect(BatchRunner.defaultMaximumInFlight == 8)
        #expect(BatchRunner(executor: executor, hello: hello, logger: logger, maximumInFlight: -3).maximumInFlight == 0)
    }
}
