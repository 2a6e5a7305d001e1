// StorageDecision: the `willCacheResponse` hook of Apple's Listing 1 — HTTPS responses are kept in
// memory only, every other response is stored with the date it was cached in its userInfo.
import CacheChain
import CacheChainCurl
import CacheChainLoopback
import Foundation

/// The date stamped by the hook.
enum CachedDate: CacheUserInfoKey {
    typealias Value = Date
    static let name = "cached-date"
}

let plain = try await LoopbackOrigin.start()
let secure = try await LoopbackOrigin.start(tls: true)
for origin in [plain, secure] {
    origin.route("/doc", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "document"))
}
let caFile = try LoopbackCertificate.writeCertificate(to: NSTemporaryDirectory())

let client = HTTPCacheClient(
    transport: CurlTransport(configuration: .init(caFile: caFile)),
    configuration: .init(willCacheResponse: { proposed, request, context in
        var cached = proposed
        if request.head.scheme == "https" {
            cached.storagePolicy = .allowedInMemoryOnly  // Listing 1: "secure" responses stay in memory
        } else {
            cached.userInfo[CachedDate.self] = context.now  // Listing 1: "Cached Date"
        }
        return cached
    })
)

for origin in [plain, secure] {
    let request = try HTTPRequest(url: origin.url("/doc"))
    let first = try await client.data(for: request)
    let second = try await client.data(for: request)
    let stored = try await client.cachedResponse(for: request)
    let stamp = stored?.userInfo[CachedDate.self].map { _ in "cached-date set" } ?? "no cached-date"
    print("\(request.scheme ?? "?"): \(first.cacheStatus.rawValue.uppercased()) then \(second.cacheStatus.rawValue.uppercased()); stored \(stored.map { "\($0.storagePolicy)" } ?? "nothing"), \(stamp)")
}
try await plain.shutdown()
try await secure.shutdown()
