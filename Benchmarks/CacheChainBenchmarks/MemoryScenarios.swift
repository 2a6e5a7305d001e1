import CacheChain
import CacheChainTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// Scenarios 1 and 2: memory hit and memory store, each next to Foundation's URLCache.
/// Nonisolated, like the client it measures, so that no sample includes a main-actor hop.
func runMemoryScenarios(iterations: Int) async throws {
    // Scenario 1: a fresh memory hit through the full default chain vs Foundation's URLCache vs a locked dictionary.
    let origin = ScriptedTransport()
    // The fields a real origin sends (the network scenario's loopback origin sends these too): a hit parses `Date`.
    let date = HTTPDate.format(Date())
    let fields = [("Cache-Control", "max-age=31536000"), ("Date", date), ("Content-Length", "512")]
    origin.route("/small", fields: fields, body: String(repeating: "x", count: 512))
    let client = HTTPCacheClient(transport: origin, configuration: .init(storage: MemoryStorage(capacity: 64 << 20)))
    let request = try HTTPRequest(url: "http://origin.test/small")
    _ = try await client.data(for: request)

    let chainHit = try await measure("memory hit, full default chain", iterations: iterations) {
        let response = try await client.data(for: request)
        precondition(response.cacheStatus == .hit)
    }

    // The same hit without request coalescing: what the coalescer in front of the cache costs a hit.
    let uncoalesced = HTTPCacheClient(
        transport: origin,
        configuration: .init(storage: MemoryStorage(capacity: 64 << 20), isRequestCoalescingEnabled: false)
    )
    _ = try await uncoalesced.data(for: request)
    let uncoalescedHit = try await measure("memory hit, full default chain, coalescing off", iterations: iterations) {
        let response = try await uncoalesced.data(for: request)
        precondition(response.cacheStatus == .hit)
    }

    let urlCache = URLCache(memoryCapacity: 64 << 20, diskCapacity: 0, diskPath: nil)
    let url = URL(string: "http://origin.test/small")!
    let urlRequest = URLRequest(url: url)
    let foundationResponse = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: Dictionary(uniqueKeysWithValues: fields))!
    urlCache.storeCachedResponse(CachedURLResponse(response: foundationResponse, data: Data(repeating: 120, count: 512)), for: urlRequest)
    let foundationHit = await measure("URLCache.cachedResponse(for:) memory", iterations: iterations) {
        precondition(urlCache.cachedResponse(for: urlRequest) != nil)
    }

    let table = Mutex<[String: [UInt8]]>(["http://origin.test/small": [UInt8](repeating: 120, count: 512)])
    let dictionaryHit = await measure("Mutex<[String: [UInt8]]> lookup (floor)", iterations: iterations) {
        precondition(table.withLock { $0["http://origin.test/small"] } != nil)
    }

    printSection("Memory hit (512-byte body, fresh entry with Cache-Control, Date and Content-Length)")
    printComparison(chainHit, foundationHit)
    printComparison(chainHit, uncoalescedHit)
    printComparison(chainHit, dictionaryHit)

    // Scenario 2: memory store with eviction pressure vs URLCache.storeCachedResponse.
    let pressured = MemoryStorage(capacity: 256 << 10)
    let storeCount = min(iterations, 50_000)
    let entries = (0..<storeCount).map { StorageConformanceSuite.makeEntry(path: "/s/\($0)", body: PipelineBody([UInt8](repeating: 1, count: 1024))) }
    var storeIndex = 0
    let chainStore = await measure("MemoryStorage.store, eviction pressure", iterations: storeCount, warmUp: 0) {
        await pressured.store(entries[storeIndex])
        storeIndex += 1
    }
    let smallURLCache = URLCache(memoryCapacity: 256 << 10, diskCapacity: 0, diskPath: nil)
    let storeRequests = (0..<storeCount).map { URLRequest(url: URL(string: "http://origin.test/s/\($0)")!) }
    var foundationIndex = 0
    let foundationStore = await measure("URLCache.storeCachedResponse memory", iterations: storeCount, warmUp: 0) {
        smallURLCache.storeCachedResponse(
            CachedURLResponse(response: foundationResponse, data: Data(repeating: 1, count: 1024)),
            for: storeRequests[foundationIndex]
        )
        foundationIndex += 1
    }
    printSection("Memory store (1 KiB bodies, 256 KiB capacity)")
    printComparison(chainStore, foundationStore)
}
