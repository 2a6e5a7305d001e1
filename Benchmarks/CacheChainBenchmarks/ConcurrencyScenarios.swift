import CacheChain
import CacheChainTesting
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Scenario 7: memory-hit throughput with 1, 2, 8 and 64 concurrent tasks, each level next to the
/// single-task figure of the same run (does it use both cores? does contention collapse it?) and next to
/// Foundation's URLCache at the same concurrency.
func runConcurrencyScenarios(iterations: Int) async throws {
    let origin = ScriptedTransport()
    let paths = (0..<64).map { "/c/\($0)" }
    for path in paths { origin.route(path, fields: [("Cache-Control", "max-age=31536000")], body: String(repeating: "x", count: 512)) }
    let client = HTTPCacheClient(transport: origin, configuration: .init(storage: MemoryStorage(capacity: 64 << 20)))
    let requests = try paths.map { try HTTPRequest(url: "http://origin.test\($0)") }
    for request in requests { _ = try await client.data(for: request) }

    let urlCache = URLCache(memoryCapacity: 64 << 20, diskCapacity: 0, diskPath: nil)
    let urlRequests = paths.compactMap { URL(string: "http://origin.test\($0)") }.map { URLRequest(url: $0) }
    for urlRequest in urlRequests {
        guard let url = urlRequest.url,
            let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Cache-Control": "max-age=31536000"])
        else { continue }
        urlCache.storeCachedResponse(CachedURLResponse(response: response, data: Data(repeating: 120, count: 512)), for: urlRequest)
    }

    printSection("Concurrent memory hits (512 B, full chain): throughput vs 1 task, and vs URLCache at the same concurrency")
    var single: Measurement?
    for tasks in [1, 2, 8, 64] {
        let ours = try await measureConcurrently("hits, \(tasks) task(s)", tasks: tasks, total: iterations) { index in
            let response = try await client.data(for: requests[index % requests.count])
            precondition(response.cacheStatus == .hit)
        }
        let foundation = try await measureConcurrently("URLCache, \(tasks) task(s)", tasks: tasks, total: iterations) { index in
            precondition(urlCache.cachedResponse(for: urlRequests[index % urlRequests.count]) != nil)
        }
        if let single { printThroughput(ours, single) } else { single = ours }
        printThroughput(ours, foundation)
    }
}

/// Runs `total` calls spread over `tasks` child tasks; records each call's latency and the wall time.
func measureConcurrently(
    _ name: String,
    tasks: Int,
    total: Int,
    _ body: @escaping @Sendable (Int) async throws -> Void
) async throws -> Measurement {
    let perTask = max(1, total / tasks)
    let clock = ContinuousClock()
    let start = clock.now
    let samples = try await withThrowingTaskGroup(of: [Double].self) { group in
        for task in 0..<tasks {
            group.addTask {
                var local: [Double] = []
                local.reserveCapacity(perTask)
                for call in 0..<perTask {
                    let begin = clock.now
                    try await body(task &* perTask &+ call)
                    let elapsed = clock.now - begin
                    local.append(elapsed.nanoseconds)
                }
                return local
            }
        }
        return try await group.reduce(into: [Double]()) { $0 += $1 }
    }
    let wall = clock.now - start
    return Measurement(
        name: name,
        samples: samples,
        wallNanoseconds: wall.nanoseconds
    )
}

/// Prints a throughput row: ours, the baseline, and ours/baseline in ops/s (higher is better).
func printThroughput(_ ours: Measurement, _ baseline: Measurement) {
    let ratio = baseline.opsPerSecond > 0 ? ours.opsPerSecond / baseline.opsPerSecond : 0
    let section = currentSection.withLock { $0 }
    recordedRows.withLock { $0.append(ResultRow(section: section, ours: ours.figures, baseline: baseline.figures, ratio: ratio)) }
    print(
        String(
            format: "%-30@ %11.0f ops/s  p50 %8.2f µs  p99 %8.2f µs | %-26@ %11.0f ops/s | throughput ratio %5.2f×",
            ours.name as NSString, ours.opsPerSecond, ours.percentile(50) / 1000, ours.percentile(99) / 1000,
            baseline.name as NSString, baseline.opsPerSecond, ratio
        )
    )
}
