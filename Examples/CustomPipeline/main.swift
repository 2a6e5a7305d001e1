// CustomPipeline: composing the built-in interceptors with one of your own, with the result builder and
// with an array, against a loopback origin (no network needed).
import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainUserInfo
import Foundation

/// A team-written interceptor: counts requests per cache status, placed outermost to see every answer.
struct StatusTally: HTTPInterceptor {
    let tally: Tally

    func intercept(_ request: PipelineRequest, context: InterceptorContext, next: Next) async throws -> PipelineResponse {
        let response = try await next(request, context)
        await tally.add(response.cacheStatus)
        return response
    }
}

actor Tally {
    private(set) var counts: [CacheStatus: Int] = [:]
    func add(_ status: CacheStatus) { counts[status, default: 0] += 1 }
}

let origin = try await LoopbackOrigin.start()
origin.route("/catalog", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "catalog v1", etag: "\"c1\""))
let transport = CurlTransport()
let verbose = CommandLine.arguments.contains("--verbose")

// 1. The result builder: `if` and `for` work as in SwiftUI.
let tally = Tally()
let built = Pipeline(transport: transport) {
    StatusTally(tally: tally)
    UserInfoStampingInterceptor.cachedDate()
    if verbose { AnyInterceptor { request, context, next in
        print("    → \(request.head.method) \(request.head.path ?? "/")")
        return try await next(request, context)
    } }
    CachePolicyInterceptor()
    RevalidationInterceptor()
    StorageDecisionInterceptor()
}
let builderClient = HTTPCacheClient(pipeline: built, configuration: .init(storage: MemoryStorage(capacity: 8 << 20)))

// 2. The same chain as an array: the array is the source of truth, first element outermost.
let arrayTally = Tally()
let listed = Pipeline(
    interceptors: [
        StatusTally(tally: arrayTally),
        UserInfoStampingInterceptor.cachedDate(),
        CachePolicyInterceptor(),
        RevalidationInterceptor(),
        StorageDecisionInterceptor(),
    ],
    transport: transport
)
let arrayClient = HTTPCacheClient(pipeline: listed, configuration: .init(storage: MemoryStorage(capacity: 8 << 20)))

let request = try HTTPRequest(url: origin.url("/catalog"))
for (name, client) in [("builder", builderClient), ("array", arrayClient)] {
    for attempt in 1...2 {
        let response = try await client.data(for: request)
        let stamped = response.userInfo[CachedDateKey.self].map { _ in "cached-date stamped" } ?? "no stamp"
        print("\(name) GET #\(attempt): \(response.cacheStatus.rawValue.uppercased()) \"\(response.body.string ?? "")\" (\(stamped))")
    }
}
// 3. The lowest latency for sequential requests: run on the libcurl thread (no thread wake-up per request).
let revalidated = try await withTaskExecutorPreference(transport.taskExecutor) {
    try await builderClient.data(for: request, cachePolicy: .reloadRevalidatingCacheData)
}
print("builder GET on the libcurl thread's executor: \(revalidated.cacheStatus.rawValue.uppercased()) \"\(revalidated.body.string ?? "")\"")
print("builder tally: \(await tally.counts.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " "))")
print("array tally: \(await arrayTally.counts.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " "))")
print("origin saw \(origin.requestCount(for: "/catalog")) requests")
try await origin.shutdown()
