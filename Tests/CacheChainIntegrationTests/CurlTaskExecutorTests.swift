import CacheChain
import CacheChainCore
@testable import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// `CurlTransport.taskExecutor`: tasks that prefer it run on the libcurl thread, are handed their transfers'
/// results there, and still finish when the transport is gone. (Cancellation on it: `CurlTransportTests`.)
@Suite("CurlTransport's libcurl thread as a task executor", .tags(.integration))
struct CurlTaskExecutorTests {
    @Test("a task preferring the executor caches over the network and resumes on the libcurl thread", arguments: ProtocolMode.allCases)
    func cachesOnTheLibcurlThread(_ mode: ProtocolMode) async throws {
        try await withNetwork(mode) { net in
            let transport = try #require(net.curlTransport)
            net.origin.route("/e", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "on the loop"))
            #expect(!transport.isOnLibcurlThread)
            let statuses = try await withTaskExecutorPreference(transport.taskExecutor) {
                var statuses: [CacheStatus] = []
                for _ in 0..<3 {
                    let response = try await net.get("/e")
                    #expect(response.body.string == "on the loop")
                    #expect(transport.isOnLibcurlThread, "resumed off the libcurl thread")
                    statuses.append(response.cacheStatus)
                }
                // A miss on a fresh URL: the transfer is handed over and its result comes back on this thread.
                let response = try await net.get("/e", policy: .reloadIgnoringLocalCacheData)
                #expect(transport.isOnLibcurlThread)
                statuses.append(response.cacheStatus)
                return statuses
            }
            #expect(statuses == [.miss, .hit, .hit, .miss])
            #expect(net.origin.requestCount(for: "/e") == 2)
        }
    }

    @Test("by default a request runs where its caller runs: a hit never touches a libcurl thread, a miss only for its transfer")
    func defaultRequestsRunWhereTheCallerRuns() async throws {
        try await withNetwork { net in
            net.origin.route("/d", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "where the caller runs"))
            let transport = CurlTransport(configuration: .init(loopCount: 2))
            let placement = ThreadPlacement(transport: transport)
            let client = HTTPCacheClient(transport: transport, configuration: .init(outerInterceptors: [placement]))
            let transferThreads = LockedValue<[UInt]>([])
            let values = recordingTransferThreads(in: transferThreads)
            let request = PipelineRequest(head: try HTTPRequest(url: net.origin.url("/d")))
            let statuses = try await Task.detached {
                [try await client.send(request, values: values).cacheStatus, try await client.send(request, values: values).cacheStatus]
            }.value
            #expect(statuses == [.miss, .hit])
            #expect(placement.sawLibcurlThread.withLock { $0 } == [false, false], "the chain ran on a libcurl thread")
            #expect(transferThreads.withLock { $0.count } == 1, "the miss's transfer reported no completion")
            await transport.shutdown()
        }
    }

    @Test("a default miss — the caller chose no executor — still cancels promptly")
    func defaultMissCancelsPromptly() async throws {
        let origin = try await LoopbackOrigin.start()
        let (arrivals, arrived) = AsyncStream<Void>.makeStream()
        origin.route("/hang", handler: { _ in
            arrived.yield()
            return LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "never", delay: .seconds(30))
        })
        let storage = MemoryStorage(capacity: 1 << 20)
        let transport = CurlTransport(configuration: .init(loopCount: 2))
        #expect(transport.loopCount == 2)
        let client = HTTPCacheClient(transport: transport, configuration: .init(storage: storage))
        let request = try HTTPRequest(url: origin.url("/hang"))
        let task = Task.detached { try await client.send(PipelineRequest(head: request), timeout: .seconds(60)) }
        var iterator = arrivals.makeAsyncIterator()
        _ = await iterator.next()
        task.cancel()
        let result = await task.result
        #expect(throws: (any Error).self) { try result.get() }
        // Cancelled, not timed out: the transfer was aborted when the task was, not when the 60 s ran out.
        if case .failure(let error as CacheChainError) = result { #expect(error.code == .cancelled) }
        #expect(await storage.usage().entryCount == 0)
        try await origin.shutdown()
        await transport.shutdown()
    }

    @Test("a transport runs one libcurl thread per core by default")
    func oneLoopPerCoreByDefault() async {
        let transport = CurlTransport()
        #expect(transport.loopCount == ProcessInfo.processInfo.activeProcessorCount)
        await transport.shutdown()
    }

    @Test("concurrent default misses spread their transfers over the libcurl threads and each gets its own body")
    func defaultMissesSpreadOverLoops() async throws {
        try await withNetwork { net in
            // Every answer waits until all 16 requests reached the origin, so the 16 transfers are in flight
            // together whatever the machine's speed (without the gate, a fast transfer could end before the next
            // one started, and the least-loaded choice would then rightly keep it on the first thread).
            let gate = LoopbackGate()
            for index in 0..<16 {
                var route = LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: .bytes(Array("s \(index)".utf8)))
                route.gate = gate
                net.origin.route("/s\(index)", route)
            }
            let opener = Task {
                try await waitUntil("all 16 requests reached the origin") { gate.waitingCount == 16 }
                gate.open()
            }
            let transport = CurlTransport(configuration: .init(loopCount: 2))
            let client = HTTPCacheClient(transport: transport)
            let transferThreads = LockedValue<[UInt]>([])
            let values = recordingTransferThreads(in: transferThreads)
            let bodies = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for index in 0..<16 {
                    group.addTask {
                        let request = PipelineRequest(head: try HTTPRequest(url: net.origin.url("/s\(index)")))
                        let response = try await client.send(request, values: values)
                        return (index, response.body.string)
                    }
                }
                return try await group.reduce(into: [Int: String?]()) { $0[$1.0] = $1.1 }
            }
            try await opener.value
            for index in 0..<16 { #expect(bodies[index] == .some("s \(index)")) }
            #expect(transferThreads.withLock { $0.count } == 16)
            #expect(transferThreads.withLock { Set($0) }.count == 2, "both libcurl threads carried transfers")
            await transport.shutdown()
        }
    }

    @Test("many concurrent tasks preferring the executor all finish with their own bodies")
    func concurrentTasks() async throws {
        try await withNetwork { net in
            let transport = try #require(net.curlTransport)
            for index in 0..<40 {
                net.origin.route("/c\(index)", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: .bytes(Array("body \(index)".utf8))))
            }
            let bodies = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for index in 0..<40 {
                    group.addTask(executorPreference: transport.taskExecutor) {
                        let response = try await net.get("/c\(index)")
                        return (index, response.body.string)
                    }
                }
                var bodies: [Int: String?] = [:]
                for try await (index, body) in group { bodies[index] = body }
                return bodies
            }
            #expect(bodies.count == 40)
            for index in 0..<40 { #expect(bodies[index] == .some("body \(index)")) }
        }
    }

    @Test("once the transport is released, a task preferring its executor still runs, on the shared pool")
    func afterTheTransportIsGone() async throws {
        var transport: CurlTransport? = CurlTransport()
        let executor = try #require(transport?.taskExecutor)
        let loop = try #require(executor as? CurlMultiLoop)
        transport = nil
        try await waitUntil("the libcurl thread ended") { loop.hasEnded }
        // Each await below enqueues a job on the ended executor: the task only gets past them if it forwards them
        // (if it dropped them, this test would never finish).
        let sum = await withTaskExecutorPreference(executor) {
            var sum = 0
            for value in 1...3 {
                await Task.yield()
                sum += value
            }
            return sum
        }
        #expect(sum == 6)
    }
}

/// Context values whose progress handler records the thread of each finished transfer (it runs on the libcurl
/// thread that carried the transfer).
func recordingTransferThreads(in threads: LockedValue<[UInt]>) -> ContextValues {
    var values = ContextValues()
    values[TransferProgressKey.self] = { progress in
        if progress.isComplete { threads.withLock { $0.append(UInt(pthread_self())) } }
    }
    return values
}

/// Records, for each request, whether the chain ran on one of the transport's libcurl threads.
private struct ThreadPlacement: HTTPInterceptor {
    let transport: CurlTransport
    let sawLibcurlThread = LockedValue<[Bool]>([])

    func intercept(_ request: PipelineRequest, context: InterceptorContext, next: Next) async throws -> PipelineResponse {
        let onLoop = transport.isOnLibcurlThread
        sawLibcurlThread.withLock { $0.append(onLoop) }
        return try await next(request, context)
    }
}
