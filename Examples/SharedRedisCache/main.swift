// SharedRedisCache: two service instances share one cache through Redis.
//
// With no arguments it starts a redis-server (Debian's redis-server package) and a loopback origin, then
// runs two separate clients — two "instances" — against them: the first is a MISS, the second a HIT that
// never reaches the origin.
//
// With `--redis-port P --url U [--namespace N]` it is one instance doing one GET and printing its cache
// status: run it twice, as two processes, to see them share the entry (the tests do exactly that). With no
// Redis listening on P it still answers, as a MISS from the origin.
import CacheChain
import CacheChainCurl
import CacheChainLoopback
import CacheChainRedis
import CacheChainTesting
import Foundation

func makeClient(port: Int, namespace: String) -> HTTPCacheClient {
    let redis = RedisStorage(configuration: .init(
        endpoint: .tcp(host: "127.0.0.1", port: port),
        namespace: namespace,
        commandTimeout: .milliseconds(500),
        circuitBreaker: .init(failureThreshold: 1, retryInterval: .seconds(10))  // Redis down: one try per 10 s
    ))
    return HTTPCacheClient(
        transport: CurlTransport(),
        configuration: .init(storage: redis, policy: CachePolicyConfiguration(mode: .sharedCache))
    )
}

func value(of option: String) -> String? {
    guard let index = CommandLine.arguments.firstIndex(of: option), index + 1 < CommandLine.arguments.count else { return nil }
    return CommandLine.arguments[index + 1]
}

if let portText = value(of: "--redis-port"), let port = Int(portText), let url = value(of: "--url") {
    let client = makeClient(port: port, namespace: value(of: "--namespace") ?? "shared-example")
    let response = try await client.data(for: HTTPRequest(url: url))
    print("\(response.cacheStatus.rawValue.uppercased()) \(response.head.status.code) \"\(response.body.string ?? "")\"")
} else {
    let redis = try await LocalRedisServer.start()
    defer { redis.stop() }
    let origin = try await LoopbackOrigin.start()
    origin.route("/prices", LoopbackRoute(headers: [("Cache-Control", "public, max-age=300")], body: "EUR 1.00"))
    let request = try HTTPRequest(url: origin.url("/prices"))
    let instanceA = makeClient(port: redis.port, namespace: "demo")
    let instanceB = makeClient(port: redis.port, namespace: "demo")
    print("redis-server on 127.0.0.1:\(redis.port), origin at \(origin.baseURL)")
    print("instance A: \(try await instanceA.data(for: request).cacheStatus.rawValue.uppercased())")
    print("instance B: \(try await instanceB.data(for: request).cacheStatus.rawValue.uppercased())")
    print("origin saw \(origin.requestCount(for: "/prices")) request(s)")
    try await origin.shutdown()
}
