// URLSessionCaching: ordinary URLSession code, cached by CacheChain on Linux with one changed line
// (`.usingCacheChain(client)`): a URLRequest with a cache policy, a data task whose session delegate implements
// Apple's Listing 1 (`willCacheResponse`), and URLCache.shared management calls. Each step prints how many
// requests the loopback origin has seen, which is what proves a HIT (no new request) and a REVALIDATED step
// (one conditional request answered 304).
import CacheChain
import CacheChainCurl
import CacheChainFoundation
import CacheChainLoopback
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Apple's Listing 1: HTTPS responses are kept in memory only; others are stored with the date they were cached.
final class ListingOne: NSObject, URLSessionDataDelegate {
    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        willCacheResponse proposedResponse: CachedURLResponse,
        completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void
    ) {
        if proposedResponse.response.url?.scheme == "https" {
            completionHandler(CachedURLResponse(
                response: proposedResponse.response, data: proposedResponse.data,
                userInfo: proposedResponse.userInfo, storagePolicy: .allowedInMemoryOnly
            ))
        } else {
            var userInfo = proposedResponse.userInfo ?? [:]
            userInfo["Cached Date"] = Date()
            completionHandler(CachedURLResponse(
                response: proposedResponse.response, data: proposedResponse.data,
                userInfo: userInfo, storagePolicy: proposedResponse.storagePolicy
            ))
        }
    }
}

// Two loopback origins (no network needed); the HTTPS one uses a test certificate the transport is told to trust.
let web = try await LoopbackOrigin.start()
let bank = try await LoopbackOrigin.start(tls: true)
web.route("/article", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "Hello from the origin!", etag: "\"v1\""))
web.route("/archive", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "Old news"))
bank.route("/account", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: "balance: 12.00"))
let caFile = try LoopbackCertificate.writeCertificate(to: NSTemporaryDirectory())
let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("cachechain-urlsession-example-\(getpid())")
defer { try? FileManager.default.removeItem(at: directory) }

// The cache: memory over disk, shared by URLCache.shared and the session.
let client = HTTPCacheClient(
    transport: CurlTransport(configuration: .init(caFile: caFile)),
    configuration: .init(storage: TieredStorage(
        memory: MemoryStorage(capacity: 4 << 20),
        disk: try DiskStorage(directory: directory.path, capacity: 50 << 20)
    ))
)
URLCache.shared = CacheChainURLCache(client: client)

// The one line: without `.usingCacheChain(client)`, FoundationNetworking caches nothing on Linux.
let session = URLSession(configuration: .default.usingCacheChain(client), delegate: ListingOne(), delegateQueue: nil)

/// Fetches a URL and prints the step, the status, the body and what the origin saw.
func step(_ label: String, _ origin: LoopbackOrigin, _ path: String, policy: URLRequest.CachePolicy = .useProtocolCachePolicy) async throws {
    guard let url = URL(string: origin.url(path)) else { return }
    let before = origin.receivedRequests.count
    let (data, response) = try await session.data(for: URLRequest(url: url, cachePolicy: policy))
    let seen = origin.receivedRequests
    let conditional = seen.count > before ? seen.last?.header("If-None-Match") : nil
    let status = seen.count == before ? "HIT" : conditional != nil ? "REVALIDATED" : "MISS"
    let code = (response as? HTTPURLResponse)?.statusCode ?? 0
    let detail = conditional.map { " (If-None-Match: \($0) → 304)" } ?? ""
    print("\(label): \(status) \(code) \"\(String(decoding: data, as: UTF8.self))\", origin saw \(seen.count) request(s)\(detail)")
}

try await step("GET /article", web, "/article")
try await step("GET /article", web, "/article")
try await step("GET /article reloadRevalidatingCacheData", web, "/article", policy: .reloadRevalidatingCacheData)
try await step("GET /archive returnCacheDataElseLoad", web, "/archive", policy: .returnCacheDataElseLoad)
try await step("GET /archive returnCacheDataElseLoad", web, "/archive", policy: .returnCacheDataElseLoad)

// A data task with a completion handler; the session's delegate (Listing 1) decides how its response is stored.
guard let account = URL(string: bank.url("/account")), let article = URL(string: web.url("/article")) else { exit(1) }
let body: String = try await withCheckedThrowingContinuation { continuation in
    session.dataTask(with: account) { data, _, error in
        if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: String(decoding: data ?? Data(), as: UTF8.self)) }
    }.resume()
}
let secure = URLCache.shared.cachedResponse(for: URLRequest(url: account))
print("data task https /account: \"\(body)\", stored \(secure.map { "\($0.storagePolicy)" } ?? "nothing") (Listing 1)")
let stamped = URLCache.shared.cachedResponse(for: URLRequest(url: article))?.userInfo?["Cached Date"] is Date
print("GET /article stored with userInfo[\"Cached Date\"]: \(stamped ? "yes" : "no")")

// URLCache.shared management calls act on the session's entries.
print("URLCache.shared: \(URLCache.shared.currentMemoryUsage) bytes in memory, \(URLCache.shared.currentDiskUsage) on disk")
URLCache.shared.removeCachedResponse(for: URLRequest(url: article))
try await step("after removeCachedResponse(for:): GET /article", web, "/article")
URLCache.shared.removeAllCachedResponses()
print("after removeAllCachedResponses(): \(URLCache.shared.currentMemoryUsage) bytes in memory, \(URLCache.shared.currentDiskUsage) on disk")
try await step("GET /archive", web, "/archive")

session.finishTasksAndInvalidate()
try await web.shutdown()
try await bank.shutdown()
