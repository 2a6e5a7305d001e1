import CacheChainBatch
import CacheChainTesting
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A pipe whose write end does not block: a write the pipe cannot take now writes nothing.
private struct NonBlockingPipe {
    let readEnd: Int32
    let writeEnd: Int32

    init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(.EIO) }
        readEnd = ends[0]
        writeEnd = ends[1]
        _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK)
    }

    /// Writes as much of `bytes` as the pipe takes now; returns how many bytes that was.
    func write(_ bytes: [UInt8]) -> Int {
        let written = bytes.withUnsafeBytes { Glibc.write(writeEnd, $0.baseAddress, $0.count) }
        return max(0, written)
    }

    func closeWriteEnd() { close(writeEnd) }
    func closeReadEnd() { close(readEnd) }
}

@Suite("Batch protocol: reading stdin")
struct FileDescriptorLinesTests {
    /// Line `n`: its number padded to `length` bytes, then a line break.
    private func line(_ number: Int, length: Int = 100) -> [UInt8] {
        // Plain Swift, not Foundation's `padding(toLength:)`: on this toolchain that crashed (a bad pointer in its
        // UTF-16 bridging) in a full parallel run of the suite.
        let digits = Array(String(number).utf8)
        return digits + Array(repeating: UInt8(ascii: "."), count: max(0, length - digits.count)) + [UInt8(ascii: "\n")]
    }

    @Test("the reading thread stops after the buffered lines while nobody consumes; every line arrives whole and in order")
    func boundedReadAhead() async throws {
        let pipe = try NonBlockingPipe()
        defer { pipe.closeReadEnd() }
        var iterator = FileDescriptorLines.lines(of: pipe.readEnd, bufferedLines: 8).makeAsyncIterator()
        // 1,000 lines of 4,001 bytes (4 MB). An unbounded reader takes them all; a bounded one holds 8 lines and
        // one 64 KiB read, and the pipe ~64 KiB more, so the writer stalls after about 200 KB. (Long lines: few
        // hand-overs, so the test stays quick on a loaded machine.)
        let total = 1_000
        let length = 4_000
        var pending: [UInt8] = []
        var next = 0
        var written = 0
        var stalledPolls = 0
        var lastProgress = ContinuousClock.now
        /// Writes what the pipe takes; counts the polls in a row in which it took nothing.
        func writeMore() {
            if pending.isEmpty, next < total {
                pending = line(next, length: length)
                next += 1
            }
            var progressed = false
            while !pending.isEmpty {
                let count = pipe.write(pending)
                if count == 0 { break }
                progressed = true
                written += count
                pending.removeFirst(count)
                if pending.isEmpty, next < total {
                    pending = line(next, length: length)
                    next += 1
                }
            }
            stalledPolls = progressed ? 0 : stalledPolls + 1
            if progressed { lastProgress = .now }
        }
        // Stalled (five polls in a row and 200 ms without progress), or everything written. Counted in polls and
        // time both: on a loaded machine (the whole suite under TSan) a poll can come seconds after the last.
        try await waitUntil("the writer stalls or finishes", timeout: .seconds(120)) {
            writeMore()
            return (stalledPolls >= 5 && ContinuousClock.now - lastProgress >= .milliseconds(200))
                || (pending.isEmpty && next == total)
        }
        #expect(written < 1_000_000, "the reader read \(written) bytes ahead of a consumer that took nothing")

        // Consume everything while writing the rest: all lines arrive, whole and in order.
        var received = 0
        var writeEndIsOpen = true
        while received < total {
            writeMore()
            if writeEndIsOpen, pending.isEmpty, next == total {
                // Once: closing the number again could close whatever a parallel test opened under it since.
                pipe.closeWriteEnd()
                writeEndIsOpen = false
            }
            guard let got = await iterator.next() else { break }
            let intact = got + [UInt8(ascii: "\n")] == line(received, length: length)
            #expect(intact, "line \(received) arrived changed (\(got.count) bytes)")
            received += 1
        }
        #expect(received == total)
        #expect(await iterator.next() == nil)
    }

    @Test("the caller may close its descriptor at once: the thread reads its own duplicate, never a reused number")
    func callerClosesItsDescriptor() async throws {
        // Were the first pipe's read end really closed (no duplicate), writing to it must fail the expectation
        // below with EPIPE instead of killing the test process.
        signal(SIGPIPE, SIG_IGN)
        let first = try NonBlockingPipe()
        var lines = FileDescriptorLines.lines(of: first.readEnd).makeAsyncIterator()
        first.closeReadEnd()
        // The lowest free number is handed out again: usually the one just closed.
        let second = try NonBlockingPipe()
        defer {
            second.closeWriteEnd()
            second.closeReadEnd()
        }
        #expect(first.write(Array("through the first pipe\n".utf8)) == 23)
        #expect(second.write(Array("through the second pipe\n".utf8)) == 24)
        let line = await lines.next()
        #expect(line.map { String(decoding: $0, as: UTF8.self) } == "through the first pipe")
        // The second pipe's bytes are still there for its own reader (a non-blocking read: stolen bytes fail the
        // expectation instead of hanging the test).
        _ = fcntl(second.readEnd, F_SETFL, fcntl(second.readEnd, F_GETFL) | O_NONBLOCK)
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { read(second.readEnd, $0.baseAddress, $0.count) }
        #expect(count == 24)
        first.closeWriteEnd()  // end of input: the thread ends and closes its duplicate
    }

    @Test("by default 1,024 lines are read ahead (the README's figure)")
    func defaultReadAhead() {
        #expect(FileDescriptorLines.defaultBufferedLines == 1024)
    }

    @Test("cancelling the consuming task ends the stream while the input is still open")
    func cancellation() async throws {
        let pipe = try NonBlockingPipe()
        defer {
            pipe.closeWriteEnd()
            pipe.closeReadEnd()
        }
        // Four lines, more than the two that may be buffered (the reading thread blocks), and no end of input:
        // only the cancellation can end the loop below.
        for number in 0..<4 { #expect(pipe.write(line(number)) == 101) }
        let stream = FileDescriptorLines.lines(of: pipe.readEnd, bufferedLines: 2)
        let consumed = Mutex<Int?>(nil)
        let consumer = Task {
            var count = 0
            for await _ in stream {
                count += 1
                if count == 1 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            consumed.withLock { $0 = count }
        }
        try await waitUntil("the stream ends after cancellation", timeout: .seconds(120)) { consumed.withLock { $0 } != nil }
        await consumer.value
        #expect((consumed.withLock { $0 } ?? 0) >= 1)
    }
}
