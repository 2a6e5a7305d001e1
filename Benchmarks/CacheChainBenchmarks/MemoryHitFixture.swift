import CacheChain
import CacheChainTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The memory-hit set-up shared by the paired memory rows and `BENCH_PROFILE=memory-hit`/`urlcache-hit`: 100k
/// fresh 64-byte entries in a `MemoryStorage` behind the default chain, and as many in Foundation's `URLCache`,
/// with 1,024 probes spread over the keys.
struct MemoryHitFixture {
    static let keyCount = 100_000
    static let body = PipelineBody([UInt8](repeating: 7, count: 64))

    /// A client over a storage holding ``keyCount`` fresh entries, and requests for 1,024 of them.
    static func cacheChain() async throws -> (storage: MemoryStorage, client: HTTPCacheClient, probes: [HTTPRequest]) {
        let storage = MemoryStorage(capacity: 1 << 30)
        for index in 0..<keyCount { await storage.store(freshEntry(path: "/n/\(index)", body: body)) }
        let client = HTTPCacheClient(transport: ScriptedTransport(), configuration: .init(storage: storage))
        let probes = try (0..<1024).map { try HTTPRequest(url: "http://origin.test/n/\(($0 &* 7919) % keyCount)") }
        return (storage, client, probes)
    }

    /// A `URLCache` holding ``keyCount`` responses, the requests for all of them, and the same 1,024 probes.
    static func urlCache() -> (cache: URLCache, requests: [URLRequest], probes: [URLRequest]) {
        let cache = URLCache(memoryCapacity: 1 << 30, diskCapacity: 0, diskPath: nil)
        let requests = (0..<keyCount).map { URLRequest(url: URL(string: "http://origin.test/n/\($0)")!) }  // invariant: literal URL
        for request in requests {
            cache.storeCachedResponse(CachedURLResponse(response: response(for: request), data: bodyData), for: request)
        }
        return (cache, requests, (0..<1024).map { requests[($0 &* 7919) % keyCount] })
    }

    /// The body as `Data`, for `URLCache`.
    static let bodyData = Data(repeating: 7, count: 64)

    /// The fresh response `URLCache` stores for a request.
    static func response(for request: URLRequest) -> HTTPURLResponse {
        HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Cache-Control": "max-age=31536000", "Content-Length": "64"])!  // invariant: valid arguments
    }
}
