import CacheChain
import CacheChainCurl
import CacheChainFoundation
import CacheChainLoopback
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSession on Linux with and without CacheChain, 512-byte body from a loopback origin: a HIT through
/// `URLSession(configuration: .default.usingCacheChain(client))` next to the same HIT through `HTTPCacheClient`
/// (the ratio is what FoundationNetworking's task machinery and the protocol add), and next to what the same
/// `URLSession` code costs without CacheChain (FoundationNetworking stores nothing, so every request is a network
/// load); a MISS through URLSession and CacheChain next to that plain load. Hit pairs are timed alternately.
func runURLSessionScenarios(iterations: Int) async throws {
    let origin = try await LoopbackOrigin.start()
    defer { Task { try? await origin.shutdown() } }
    origin.route("/doc", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: .generated(count: 512)))
    guard let url = URL(string: origin.url("/doc")) else { throw BenchmarkError("bad loopback URL") }
    let client = HTTPCacheClient(transport: CurlTransport(), configuration: .init(storage: MemoryStorage(capacity: 64 << 20)))
    let cached = URLSession(configuration: .ephemeral.usingCacheChain(client))
    let plain = URLSession(configuration: .ephemeral)
    defer {
        cached.invalidateAndCancel()
        plain.invalidateAndCancel()
    }
    let request = try HTTPRequest(url: origin.url("/doc"))
    _ = try await cached.data(from: url)

    let hits = try await measureAlternating(
        ("URLSession + CacheChain memory hit, 512 B", "HTTPCacheClient memory hit, 512 B"), iterations: iterations
    ) {
        let (data, _) = try await cached.data(from: url)
        precondition(data.count == 512)
    } _: {
        let response = try await client.data(for: request)
        precondition(response.cacheStatus == .hit)
    }
    let loads = min(iterations, 2_000)
    let plainLoad = try await measure("URLSession without CacheChain (a network load), 512 B", iterations: loads, warmUp: 20) {
        let (data, _) = try await plain.data(from: url)
        precondition(data.count == 512)
    }
    let miss = try await measure("URLSession + CacheChain miss (stores), 512 B", iterations: loads, warmUp: 20) {
        let (data, _) = try await cached.data(for: URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData))
        precondition(data.count == 512)
    }
    printSection("URLSession on Linux: with CacheChain (one line) and without, loopback origin")
    printComparison(hits.first, hits.second)
    printComparison(plainLoad, hits.first)
    printComparison(miss, plainLoad)
}
