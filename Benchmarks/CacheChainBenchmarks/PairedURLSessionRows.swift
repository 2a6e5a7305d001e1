import CacheChain
import CacheChainCurl
import CacheChainFoundation
import CacheChainLoopback
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `urlsession` group of the paired run (issue 43): a HIT through `URLSession(configuration:
/// .ephemeral.usingCacheChain(client))` next to FoundationNetworking's own floor for an answer that needs no I/O — a
/// minimal `URLProtocol` that answers from a dictionary at once, in the same session set-up — and a MISS through
/// CacheChain next to the plain URLSession network load of the same resource.
func runPairedURLSessionRows(plan: PairedPlan) async throws {
    let origin = try await LoopbackOrigin.start()
    defer { Task { try? await origin.shutdown() } }
    origin.route("/doc", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: .generated(count: 512)))
    guard let url = URL(string: origin.url("/doc")) else { throw BenchmarkError("bad loopback URL") }
    let client = HTTPCacheClient(transport: CurlTransport(), configuration: .init(storage: MemoryStorage(capacity: 64 << 20)))
    let cached = URLSession(configuration: .ephemeral.usingCacheChain(client))
    let floorConfiguration = URLSessionConfiguration.ephemeral
    floorConfiguration.protocolClasses = [DictionaryURLProtocol.self]
    let floor = URLSession(configuration: floorConfiguration)
    let plain = URLSession(configuration: .ephemeral)
    defer {
        cached.invalidateAndCancel()
        floor.invalidateAndCancel()
        plain.invalidateAndCancel()
    }
    let (stored, _) = try await cached.data(from: url)
    DictionaryURLProtocol.answers.withLock { $0[url.absoluteString] = stored }

    printSection("URLSession: a CacheChain memory hit vs a minimal URLProtocol answering from a dictionary (paired rounds)")
    try await comparePaired(
        ("URLSession + CacheChain memory hit, 512 B", "URLSession + dictionary URLProtocol, 512 B"), plan: plan, calls: 2_000,
        target: "≤ 1.5", resourceUse: true
    ) {
        let (data, _) = try await cached.data(from: url)
        precondition(data.count == 512)
    } _: {
        let (data, _) = try await floor.data(from: url)
        precondition(data.count == 512)
    }

    printSection("URLSession: a CacheChain miss vs a plain URLSession network load (paired rounds)")
    try await comparePaired(
        ("URLSession + CacheChain miss (stores), 512 B", "plain URLSession network load, 512 B"), plan: plan, calls: 400,
        target: "≤ 1.0", resourceUse: true
    ) {
        let (data, _) = try await cached.data(for: URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData))
        precondition(data.count == 512)
    } _: {
        let (data, _) = try await plain.data(from: url)
        precondition(data.count == 512)
    }
}

/// FoundationNetworking's floor for a response that needs no I/O: answers `http` requests from a dictionary, at once,
/// on the task's work queue (where `startLoading` is called).
final class DictionaryURLProtocol: URLProtocol {
    /// Bodies by absolute URL.
    static let answers = Mutex<[String: Data]>([:])

    override class func canInit(with request: URLRequest) -> Bool { request.url?.scheme == "http" }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        guard let url = request.url, let body = Self.answers.withLock({ $0[url.absoluteString] }),
            let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Length": "\(body.count)"])
        else { return client?.urlProtocol(self, didFailWithError: URLError(.resourceUnavailable)) ?? () }
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: body)
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}
}
