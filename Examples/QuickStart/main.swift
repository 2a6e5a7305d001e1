// QuickStart: a cached GET through the default chain and the libcurl transport.
//
// Starts a loopback origin on 127.0.0.1 (no network needed), asks for the same URL twice and prints
// MISS then HIT with the decision trace, then shows revalidation and the management API.
import CacheChain
import CacheChainCurl
import CacheChainLoopback
import Foundation

let origin = try await LoopbackOrigin.start()
origin.route("/hello", LoopbackRoute(
    headers: [("Cache-Control", "max-age=60"), ("Content-Type", "text/plain")],
    body: "Hello from the origin!",
    etag: "\"v1\""
))

// CacheStatusInterceptor (opt-in) adds RFC 9211's Cache-Status field to every response.
let client = HTTPCacheClient(transport: CurlTransport(), configuration: .init(outerInterceptors: [CacheStatusInterceptor()]))
let request = try HTTPRequest(url: origin.url("/hello"))

func show(_ label: String, _ response: PipelineResponse) {
    let status = response.cacheStatus.rawValue.uppercased()
    print("\(label): \(status.padding(toLength: 11, withPad: " ", startingAt: 0)) \(response.head.status.code) \"\(response.body.string ?? "")\"")
    for reason in response.trace { print("    · \(reason)") }
    print("    Cache-Status: \(response.head.headerFields[CacheStatusField.name] ?? "-")")
}

print("CacheChain quick start — origin at \(origin.baseURL), transport \(CurlTransport.libcurlVersion)\n")
show("1st GET", try await client.data(for: request))
show("2nd GET", try await client.data(for: request))
// A single range of the stored response comes from the cache too: 206 with Content-Range (the cache policy serves ranges).
var ranged = request
ranged.headerFields[.range] = "bytes=0-4"
let part = try await client.data(for: ranged)
show("GET Range bytes=0-4", part)
print("    → \(part.head.status.code) Content-Range: \(part.head.headerFields[.contentRange] ?? "-")")
show("reloadRevalidatingCacheData", try await client.data(for: request, cachePolicy: .reloadRevalidatingCacheData))
print("\norigin saw \(origin.requestCount(for: "/hello")) requests over \(origin.connectionCount) connection(s)")
print("cache holds \(await client.currentMemoryUsage) bytes of \(await client.memoryCapacity)")
try await client.removeAllCachedResponses()
show("after removeAllCachedResponses", try await client.data(for: request))

// Streaming: the body as it arrives (a miss), stored once complete; the second time, read from the cache.
origin.route("/download", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: .generated(count: 256 << 10)))
for attempt in ["1st", "2nd"] {
    let summary = try await client.stream(try HTTPRequest(url: origin.url("/download"))) { response in
        var received = 0
        for try await chunk in response.body { received += chunk.count }
        return "\(response.cacheStatus.rawValue.uppercased()) \(received) bytes"
    }
    print("\(attempt) stream GET /download: \(summary)")
}
try await origin.shutdown()
