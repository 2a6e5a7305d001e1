import CacheChain
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
