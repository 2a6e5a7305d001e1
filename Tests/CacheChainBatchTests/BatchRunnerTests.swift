import CacheChain
import CacheChainBatch
import CacheChainTesting
import Logging
import Synchronization
import Testing

/// Collects protocol lines in memory.
final class CollectedOutput: BatchOutput {
    private let lines = Mutex<[String]>([])
    func write(line: String) { lines.withLock { $0.append(line) } }
    func flush() async {}
    var all: [String] { lines.withLock { $0 } }
}

@Suite("Batch protocol: the runner over a scripted origin")
struct BatchRunnerTests {
    private let origin = ScriptedTransport()
    private let hello = BatchHello(version: "test", config: "scripted")

    private func run(_ lines: [String]) async -> [String] {
        let client = HTTPCacheClient(
            transport: origin,
            configuration: .init(storage: MemoryStorage(capacity: 1 << 20), outerInterceptors: [RedirectInterceptor()])
        )
        let output = CollectedOutput()
        let runner = BatchRunner(executor: BatchExecutor(client: client), hello: hello, logger: Logger(label: "test"))
        let input = AsyncStream<[UInt8]> { continuation in
            for line in lines { continuation.yield(Array(line.utf8)) }
            continuation.finish()
        }
        await runner.run(lines: input, output: output)
        return output.all
    }

    private func request(_ id: Int, _ path: String, _ extra: String = "") -> String {
        #"{"type":"request","id":\#(id),"method":"GET","url":"http://origin.test\#(path)"\#(extra)}"#
    }

    @Test("the hello comes first, then one reply for the request")
    func missThenHit() async {
        origin.route("/a", fields: [("Cache-Control", "max-age=60")], body: "hello")
        let first = await run([#"{"type":"hello","protocol":1}"#, request(1, "/a")])
        #expect(first.count == 2)
        #expect(first.first == hello.jsonLine)
        #expect(first.last?.contains(#""cache_status":"miss""#) == true)
    }

    @Test(
        "no-store uses the network and stores nothing; only-if-cached then answers 504 until a default request stores"
    )
    func noStore() async {
        origin.route("/n", fields: [("Cache-Control", "max-age=60")], body: "n")
        let same = await runSequentially([
            request(1, "/n", #","cache_mode":"no-store""#),
            request(2, "/n", #","cache_mode":"only-if-cached""#),
            request(3, "/n"),
            request(4, "/n", #","cache_mode":"only-if-cached""#),
        ])
        #expect(same[0].contains(#""status":200"#))
        #expect(same[1].contains(#""status":504"#) && same[1].contains(#""cache_status":"unsatisfiable""#))
        #expect(same[2].contains(#""cache_status":"miss""#))
        #expect(same[3].contains(#""status":200"#) && same[3].contains(#""cache_status":"hit""#))
    }

    /// Runs each request in its own session step, one after the other, against one client.
    private func runSequentially(_ requests: [String]) async -> [String] {
        let client = HTTPCacheClient(transport: origin, configuration: .init(storage: MemoryStorage(capacity: 1 << 20)))
        let executor = BatchExecutor(client: client)
        var replies: [String] = []
        for line in requests {
            guard case .request(let request) = BatchInput(line: Array(line.utf8)) else {
                Issue.record("bad test line \(line)")
                continue
            }
            replies.append(await executor.reply(to: request).jsonLine)
        }
        return replies
    }

    @Test("a request id error and a malformed line do not stop the session")
    func errorsKeepGoing() async {
        origin.route("/ok", fields: [], body: "ok")
        let lines = await run([
            #"{"type":"hello","protocol":1}"#,
            "garbage",
            #"{"type":"request","id":1,"url":"mailto:x"}"#,
            request(2, "/ok"),
        ])
        #expect(lines.count == 4)
        #expect(lines[1].hasPrefix(#"{"type":"error","line":2,"error":"not valid JSON"#))
        #expect(lines.contains { $0.hasPrefix(#"{"id":1,"error":"#) })
        #expect(lines.contains { $0.hasPrefix(#"{"id":2,"status":200,"#) })
    }

    @Test("lines after end are not read")
    func afterEnd() async {
        origin.route("/ok", fields: [], body: "ok")
        let lines = await run([#"{"type":"hello","protocol":1}"#, #"{"type":"end"}"#, request(1, "/ok")])
        #expect(lines == [hello.jsonLine])
        #expect(origin.requestCount(for: "/ok") == 0)
    }
}
