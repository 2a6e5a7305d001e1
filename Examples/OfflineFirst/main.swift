// OfflineFirst: keep working when the origin is down — stale-if-error, serving stale when the origin is unreachable
// (RFC 9111 §4.2.4, on in a private cache: CachePolicyConfiguration.servesStaleWhenOriginUnreachable) and
// returnCacheDataElseLoad.
import CacheChain
import CacheChainCurl
import CacheChainLoopback

let origin = try await LoopbackOrigin.start()
origin.route("/news", LoopbackRoute(headers: [("Cache-Control", "max-age=0, stale-if-error=86400")], body: "today's news", etag: "\"n1\""))
origin.route("/profile", LoopbackRoute(headers: [("Cache-Control", "max-age=0")], body: "my profile"))
let client = HTTPCacheClient(transport: CurlTransport(configuration: .init(connectTimeout: .seconds(2))))
let news = try HTTPRequest(url: origin.url("/news"))
let profile = try HTTPRequest(url: origin.url("/profile"))

func show(_ label: String, _ result: Result<PipelineResponse, any Error>) {
    switch result {
    case .success(let response):
        print("\(label): \(response.cacheStatus.rawValue.uppercased()) \(response.head.status.code) \"\(response.body.string ?? "")\"")
    case .failure(let error):
        print("\(label): ERROR \((error as? CacheChainError)?.shortDescription ?? "\(error)")")
    }
}

func attempt(_ request: HTTPRequest, policy: RequestCachePolicy? = nil) async -> Result<PipelineResponse, any Error> {
    do { return .success(try await client.data(for: request, cachePolicy: policy)) } catch { return .failure(error) }
}

print("online:")
show("  GET /news", await attempt(news))
show("  GET /profile", await attempt(profile))
// Cached first, then fresh: the stored news at once, then the origin's when it changed.
origin.route("/news", LoopbackRoute(headers: [("Cache-Control", "max-age=0, stale-if-error=86400")], body: "breaking news", etag: "\"n2\""))
for try await response in client.responses(for: news) {
    show("  cached-then-fresh /news", .success(response))
}
try await origin.shutdown()
print("origin down:")
show("  GET /news (stale-if-error)", await attempt(news))
show("  GET /profile (no stale-if-error, origin unreachable)", await attempt(profile))
var forced = profile
forced.headerFields[.cacheControl] = "no-cache"  // asks for the origin's answer: the failure comes through
show("  GET /profile (no-cache)", await attempt(forced))
show("  GET /profile returnCacheDataElseLoad", await attempt(profile, policy: .returnCacheDataElseLoad))
show("  GET /profile returnCacheDataDontLoad", await attempt(profile, policy: .returnCacheDataDontLoad))

// Housekeeping: both entries are stale (max-age=0) but still useful offline; a purge of what has been stale
// for a day keeps them, removing every expired entry does not.
let staleForADay = try await client.removeExpiredResponses(olderThan: .seconds(86_400))
let expired = try await client.removeExpiredResponses()
print("housekeeping: removed \(staleForADay) stale for a day, then \(expired) expired")
