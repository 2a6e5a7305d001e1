import CacheChain
import CacheChainBatch
import CacheChainTesting
import Foundation
import Logging
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Two non-blocking pipes standing for the peer's end of stdin and stdout.
private struct PeerPipes {
    let input: (read: Int32, write: Int32)
    let output: (read: Int32, write: Int32)

    init() throws {
        var inputEnds: [Int32] = [0, 0]
        var outputEnds: [Int32] = [0, 0]
        guard pipe(&inputEnds) == 0, pipe(&outputEnds) == 0 else { throw POSIXError(.EIO) }
        input = (inputEnds[0], inputEnds[1])
        output = (outputEnds[0], outputEnds[1])
        for descriptor in [input.write, output.read] {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        _ = fcntl(output.write, 1031, 4096)  // F_SETPIPE_SZ (not exported to Swift): the smallest pipe, which a peer that reads nothing fills at once
    }

    /// Writes as much as the input pipe takes now; returns how many bytes that was.
    func write(_ bytes: ArraySlice<UInt8>) -> Int {
        max(0, bytes.withUnsafeBytes { Glibc.write(input.write, $0.baseAddress, $0.count) })
    }

    /// Counts the line breaks in everything the output pipe holds now.
    func readAvailableLineBreaks() -> Int {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var lineBreaks = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(output.read, $0.baseAddress, $0.count) }
            guard count > 0 else { return lineBreaks }
            lineBreaks += buffer[0..<count].count { $0 == 10 }
        }
    }

    /// Gives the output pipe its usual size back, once the stall has been seen.
    func widenOutput() {
        _ = fcntl(output.read, 1031, 1 << 20)  // F_SETPIPE_SZ
    }
}

@Suite("Batch protocol: a peer that does not read its replies")
struct BatchBackPressureTests {
    @Test("with stdout full, the runner stops reading stdin: the peer's writes stall, then every reply arrives")
    func slowReaderHoldsInputBack() async throws {
        let pipes = try PeerPipes()
        var inputIsOpen = true
        defer {
            if inputIsOpen { close(pipes.input.write) }
            close(pipes.output.read)
        }
        let origin = ScriptedTransport()
        origin.route("/r", fields: [("Cache-Control", "max-age=600")], body: String(repeating: "x", count: 4_000))
        let client = HTTPCacheClient(transport: origin, configuration: .init(storage: MemoryStorage(capacity: 1 << 20)))
        let runner = BatchRunner(
            executor: BatchExecutor(client: client), hello: BatchHello(version: "test", config: "back-pressure"),
            logger: Logger(label: "test"), maximumInFlight: 8
        )
        let output = FileDescriptorOutput(descriptor: pipes.output.write)
        let lines = FileDescriptorLines.lines(of: pipes.input.read, bufferedLines: 16)
        let session = Task {
            await runner.run(lines: lines, output: output)
            close(pipes.output.write)
            close(pipes.input.read)
        }

        // 2,000 request lines of 500 bytes (1 MB) for 8 MB of replies. A runner that queues replies performs
        // requests and reads lines as fast as it can; one whose replies wait for the reader performs 8 and then
        // holds 8 in flight, 16 buffered lines, one 64 KiB read and a 64 KiB pipe.
        let total = 2_000
        let padding = String(repeating: "p", count: 400)
        var input = Array(#"{"type":"hello","protocol":1}"#.utf8) + [10]
        for id in 0..<total {
            let line = #"{"type":"request","id":\#(id),"url":"http://origin.test/r","cache_mode":"no-store","headers":[["X-Padding","\#(padding)"]]}"#
            input += Array(line.utf8) + [10]
        }
        input += Array(#"{"type":"end"}"#.utf8) + [10]
        var written = 0
        var stalledPolls = 0
        var lastProgress = ContinuousClock.now
        func writeMore() {
            let count = written < input.count ? pipes.write(input[written...]) : 0
            written += count
            stalledPolls = count > 0 ? 0 : stalledPolls + 1
            if count > 0 { lastProgress = .now }
        }
        try await waitUntil("the peer's writes stall or finish", timeout: .seconds(120)) {
            writeMore()
            return (stalledPolls >= 5 && ContinuousClock.now - lastProgress >= .milliseconds(300)) || written == input.count
        }
        #expect(written < input.count / 4, "the runner read \(written) of \(input.count) input bytes while nobody read a reply")
        // Each request reaches the origin (no-store): the 8 in flight hold their slots while their replies wait.
        #expect(origin.receivedRequests.count <= 16, "\(origin.receivedRequests.count) requests performed while nobody read a reply")

        // Now read: every reply arrives and the session ends.
        pipes.widenOutput()
        var replies = 0
        try await waitUntil("every reply arrives", timeout: .seconds(300)) {
            writeMore()
            if written == input.count, inputIsOpen {
                close(pipes.input.write)  // once: closing the number again could close another test's descriptor
                inputIsOpen = false
            }
            replies += pipes.readAvailableLineBreaks()
            return replies == total + 1
        }
        await session.value
        #expect(!output.hasFailed)
    }
}
