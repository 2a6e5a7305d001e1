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
/// only, and nothing else. Run it twice under `valgrind --tool=callgrind`, with `n` and with 0 calls: the
/// difference of the two profiles is `n` calls, without the set-up. Names: `memory-hit` (the full chain at 100k
/// keys), `urlcache-hit` (`URLCache` at 100k keys), `curl-send` (`CurlTransport.send` alone, 512 B),
/// `libcurl-loop` (the plain libcurl loop, 512 B).
func runProfile(_ name: String, calls: Int) async throws {
    switch name {
    case "memory-hit":
        let (_, client, probes) = try await MemoryHitFixture.cacheChain()
        for call in 0..<calls {
            let response = try await client.data(for: probes[call & 1023])
            precondition(response.cacheStatus == .hit)
        }
    case "urlcache-hit":
        let (urlCache, _, probes) = MemoryHitFixture.urlCache()
        for call in 0..<calls {
            precondition(urlCache.cachedResponse(for: probes[call & 1023]) != nil)
        }
    case "curl-send", "libcurl-loop":
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
        } else {
            let plain = try PlainLibcurl(url: url)
            for _ in 0..<calls { try plain.perform(expectedSize: 512) }
        }
        try await origin.shutdown()
    default:
        throw BenchmarkError("BENCH_PROFILE: no profile named \(name) (memory-hit, urlcache-hit, curl-send, libcurl-loop)")
    }
}
