import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One subject of a paired row run alone, for a profiler (issue 29): `BENCH_PROFILE=<name>` with
/// `BENCH_PROFILE_CALLS=<n>` (20,000 by default) runs the same set-up as the paired row, then `n` calls of one side
/// only, and nothing else. Profile it with `perf record -F 4000` (valgrind 3.19 crashes on these binaries), or count
/// with `perf stat -e task-clock,context-switches`; run it with `n` and with 0 calls: the difference is `n` calls,
/// without the set-up. Names: `memory-hit` (the full chain at 100k keys), `instant-miss` (a miss through the full
/// chain over a transport that answers at once), `urlcache-hit` (`URLCache` at 100k keys), `curl-send`
/// (`CurlTransport.send` alone, 512 B), `curl-miss` (a miss through the default client over `CurlTransport`, 512 B),
/// `libcurl-loop` (the plain libcurl loop, 512 B).
func runProfile(_ name: String, calls: Int) async throws {
    switch name {
    case "memory-hit":
        let (_, client, probes) = try await MemoryHitFixture.cacheChain()
        for call in 0..<calls {
            let response = try await client.data(for: probes[call & 1023])
            precondition(response.cacheStatus == .hit)
        }
    case "instant-miss":
        // The pipeline's own work on a miss (the paired row's subject): a transport that answers at once.
        let instant = InstantTransport(response: PipelineResponse(
            head: HTTPResponse(status: .ok, headerFields: [.cacheControl: "max-age=600", .contentLength: "64"]), body: MemoryHitFixture.body
        ))
        let missClient = HTTPCacheClient(transport: instant, configuration: .init(storage: MemoryStorage(capacity: 64 << 20)))
        for call in 0..<calls {
            let response = try await missClient.data(for: try HTTPRequest(url: "http://origin.test/miss/\(call)"))
            precondition(response.cacheStatus == .miss)
        }
    case "urlcache-hit":
        let (urlCache, _, probes) = MemoryHitFixture.urlCache()
        for call in 0..<calls {
            precondition(urlCache.cachedResponse(for: probes[call & 1023]) != nil)
        }
    case "curl-send", "curl-miss", "libcurl-loop":
        let origin = try await LoopbackOrigin.start()
        origin.route("/small", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: .generated(count: 512)))
        let url = origin.url("/small")
        if name == "curl-send" {
            let transport = CurlTransport()
            let context = InterceptorContext(storage: MemoryStorage(capacity: 1))
            let request = try HTTPRequest(url: url)
            for _ in 0..<calls {
                let response = try await transport.send(PipelineRequest(head: request), context: context)
                precondition(response.body.count == 512)
            }
            await transport.shutdown()
        } else if name == "curl-miss" {
            let transport = CurlTransport()
            let client = HTTPCacheClient(transport: transport, configuration: .init(storage: MemoryStorage(capacity: 256 << 20)))
            let request = try HTTPRequest(url: url)
            for _ in 0..<calls {
                let response = try await client.data(for: request, cachePolicy: .reloadIgnoringLocalCacheData)
                precondition(response.cacheStatus == .miss && response.body.count == 512)
            }
            try await client.shutdown()
        } else {
            let plain = try PlainLibcurl(url: url)
            for _ in 0..<calls { try plain.perform(expectedSize: 512) }
        }
        try await origin.shutdown()
    default:
        throw BenchmarkError("BENCH_PROFILE: no profile named \(name) (memory-hit, instant-miss, urlcache-hit, curl-send, curl-miss, libcurl-loop)")
    }
}
