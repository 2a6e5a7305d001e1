// OpenAPICaching: a client generated from openapi.yaml (swift-openapi-generator's build plugin), with
// CacheChain added as one middleware in front of its AsyncHTTPClient transport.
//
// Starts a loopback origin on 127.0.0.1 (no network needed), calls getGreeting twice (MISS, then HIT: the
// origin is not asked again), changes the greeting with PUT (an unsafe method: the cached greeting is
// invalidated), and calls getGreeting again (MISS, the new greeting).
import CacheChain
import CacheChainLoopback
import CacheChainOpenAPI
import Foundation
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import Synchronization

/// The origin's side: the greeting it serves (as JSON, fresh for 60 s) and replaces on PUT.
let origin = try await LoopbackOrigin.start()
let served = Mutex(Data(#"{"message":"Hello, Ada!"}"#.utf8))
origin.route("/api/greetings/ada", handler: { request in
    if request.method == "PUT" {
        served.withLock { $0 = Data(request.body) }
        return LoopbackRoute(status: 204)
    }
    let json = served.withLock { $0 }
    return LoopbackRoute(headers: [("Cache-Control", "max-age=60"), ("Content-Type", "application/json")], body: .bytes(Array(json)))
})
guard let serverURL = URL(string: origin.url("/api")) else { throw URLError(.badURL) }

let client = Client(serverURL: serverURL, transport: AsyncHTTPClientTransport(), middlewares: [HTTPCacheMiddleware()])

/// Calls getGreeting and prints the cache status the middleware recorded for it.
func greet(_ label: String) async throws {
    let (output, outcomes) = try await HTTPCacheMiddleware.collectingOutcomes {
        try await client.getGreeting(path: .init(name: "ada"))
    }
    let message = try output.ok.body.json.message
    let status = outcomes.last?.cacheStatus.rawValue.uppercased() ?? "?"
    print("\(label): \(status) \"\(message)\"  · \(outcomes.last?.trace.map(\.code.rawValue).joined(separator: ", ") ?? "")")
}

print("CacheChain as an OpenAPI client middleware — origin at \(origin.baseURL)\n")
try await greet("getGreeting #1")
try await greet("getGreeting #2")
_ = try await client.setGreeting(path: .init(name: "ada"), body: .json(.init(message: "Hello again, Ada!")))
print("setGreeting: PUT sent; the cached greeting is invalidated")
try await greet("getGreeting #3")
print("\norigin saw \(origin.requestCount(for: "/api/greetings/ada")) request(s): 2 GET, 1 PUT")
try await origin.shutdown()
