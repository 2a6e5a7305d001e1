import CacheChain
import CacheChainCurl
import CacheChainLoopback
import Foundation

/// Scenario 6: a cache miss through `CurlTransport` alone and through the full pipeline, next to a plain
/// libcurl loop (one reused easy handle, `curl_easy_perform`) against the same loopback origin; plus a
/// memory hit on the same client for the hit/miss ratio; and the hand-off floor of `CurlTransport`'s design (a
/// Swift task to a `curl_multi_poll` thread and back, no HTTP), which the plain loop does not pay. The transport
/// and the chain are measured twice: from Swift's default pool, and from tasks that prefer the transport's
/// `taskExecutor` (no thread crossed per request). A transport that answers at once with a recorded response of
/// the origin shows the pipeline's own cost on a miss, hot in the CPU caches.
func runNetworkScenarios(iterations: Int) async throws {
    let origin = try await LoopbackOrigin.start()
    defer { Task { try? await origin.shutdown() } }
    let sizes: [(String, Int)] = [("small (512 B)", 512), ("1 MiB", 1 << 20)]
    for (label, size) in sizes {
        let path = "/body-\(size)"
        origin.route(path, LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: .generated(count: size)))
        let url = origin.url(path)
        let count = size > 4096 ? max(50, iterations / 20) : iterations
        let request = try HTTPRequest(url: url)

        let raw = try rawLibcurlLoop(url: url, iterations: count, expectedSize: size)

        let transport = CurlTransport()
        let context = InterceptorContext(storage: MemoryStorage(capacity: 1))
        let transportOnly = try await measure("CurlTransport alone, \(label)", iterations: count, warmUp: 10) {
            let response = try await transport.send(PipelineRequest(head: request), context: context)
            precondition(response.body.count == size)
        }

        let client = HTTPCacheClient(transport: transport, configuration: .init(storage: MemoryStorage(capacity: 256 << 20)))
        let missThroughChain = try await measure("full chain miss (stores), \(label)", iterations: count, warmUp: 10) {
            let response = try await client.data(for: request, cachePolicy: .reloadIgnoringLocalCacheData)
            precondition(response.cacheStatus == .miss && response.body.count == size)
        }
        // The same two loops with the libcurl thread as the task's executor: no thread is crossed per request.
        let transportOnExecutor = try await withTaskExecutorPreference(transport.taskExecutor) {
            try await measure("CurlTransport alone, on its executor, \(label)", iterations: count, warmUp: 10) {
                let response = try await transport.send(PipelineRequest(head: request), context: context)
                precondition(response.body.count == size)
            }
        }
        let missOnExecutor = try await withTaskExecutorPreference(transport.taskExecutor) {
            try await measure("full chain miss, on libcurl's executor, \(label)", iterations: count, warmUp: 10) {
                let response = try await client.data(for: request, cachePolicy: .reloadIgnoringLocalCacheData)
                precondition(response.cacheStatus == .miss && response.body.count == size)
            }
        }
        // Hits are cheap: they get the full sample count (not the reduced one of 1 MiB misses) and a warm-up,
        // so their p50 is the steady state rather than the first calls after a loop of 1 MiB transfers.
        let hit = try await measure("full chain memory hit, \(label)", iterations: iterations, warmUp: 100) {
            let response = try await client.data(for: request)
            precondition(response.cacheStatus == .hit)
        }

        let handOff = try await measureHandOffFloor(iterations: count)

        // The pipeline's own cost on a miss: the same client set-up over a transport that answers at once with a
        // response the origin sent (the same head, so the policy parses the same fields).
        let recorded = try await transport.send(PipelineRequest(head: request), context: context)
        let instant = HTTPCacheClient(
            transport: InstantTransport(response: recorded),
            configuration: .init(storage: MemoryStorage(capacity: 256 << 20))
        )
        let pipelineOnly = try await measure("full chain miss, instant transport, \(label)", iterations: iterations, warmUp: 100) {
            let response = try await instant.data(for: request, cachePolicy: .reloadIgnoringLocalCacheData)
            precondition(response.cacheStatus == .miss)
        }
        let pipelineOnExecutor = try await withTaskExecutorPreference(transport.taskExecutor) {
            try await measure("same, on libcurl's executor, \(label)", iterations: iterations, warmUp: 100) {
                let response = try await instant.data(for: request, cachePolicy: .reloadIgnoringLocalCacheData)
                precondition(response.cacheStatus == .miss)
            }
        }

        printSection("Network miss vs plain libcurl, \(label) body, loopback origin")
        printComparison(transportOnly, raw)
        // The design's fixed price, measured in the same run: its ratio is the share of a plain request it costs.
        printComparison(handOff, raw)
        printComparison(try plainLibcurlMultiLoop(url: url, iterations: count, expectedSize: size), raw)
        printComparison(missThroughChain, raw)
        printComparison(transportOnExecutor, raw)
        printComparison(missOnExecutor, raw)
        printComparison(pipelineOnly, raw)
        printComparison(pipelineOnExecutor, raw)
        // Miss first, so that the ratio column reads "how many times faster a hit is" (the target is ≥ 100×).
        printComparison(missThroughChain, hit)
    }

    // A 304 revalidation round trip: `no-cache` makes every request a conditional GET answered 304.
    origin.route("/revalidate", LoopbackRoute(headers: [("Cache-Control", "no-cache")], body: "validated body", etag: "\"r1\""))
    let url = origin.url("/revalidate")
    let count = iterations
    let raw = try rawLibcurlLoop(url: url, iterations: count, expectedSize: 0, headers: ["If-None-Match: \"r1\""], expectedStatus: 304)
    let client = HTTPCacheClient(transport: CurlTransport(), configuration: .init(storage: MemoryStorage(capacity: 16 << 20)))
    let request = try HTTPRequest(url: url)
    _ = try await client.data(for: request)
    let revalidation = try await measure("full chain 304 revalidation", iterations: count, warmUp: 10) {
        let response = try await client.data(for: request)
        precondition(response.cacheStatus == .revalidated)
    }
    printSection("304 revalidation round trip vs plain libcurl conditional GET, loopback origin")
    printComparison(revalidation, raw)
}

/// A transport that answers every request at once with one recorded response: what is left of a miss is the
/// pipeline's own work (policy, coalescing, the storage decision and the store).
struct InstantTransport: HTTPTransport {
    let response: PipelineResponse

    func send(_ request: PipelineRequest, context: InterceptorContext) async throws -> PipelineResponse {
        response
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
