import CacheChain
import CacheChainTesting
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The memory rows of the paired run (issue 29): a hit at 100k keys through the full chain next to
/// Foundation's `URLCache` holding as many; hits from 2 tasks next to 1 task (do hits use both cores?); a
/// store into a memory cache of 100k entries, with the entries built beforehand, next to `URLCache`'s store.
func runPairedMemoryRows(plan: PairedPlan) async throws {
    let keyCount = MemoryHitFixture.keyCount
    let (storage, client, probes) = try await MemoryHitFixture.cacheChain()
    let (urlCache, urlRequests, urlProbes) = MemoryHitFixture.urlCache()

    printSection("Memory hit, 64-byte bodies, 100k keys (paired rounds)")
    var next = 0
    var foundationNext = 0
    try await comparePaired(("full chain memory hit, 100k keys", "URLCache.cachedResponse, 100k keys"), plan: plan, calls: 20_000, target: "≤ 0.6") {
        let response = try await client.data(for: probes[next & 1023])
        next &+= 1
        precondition(response.cacheStatus == .hit)
    } _: {
        precondition(urlCache.cachedResponse(for: urlProbes[foundationNext & 1023]) != nil)
        foundationNext &+= 1
    }

    // The floor of any in-memory cache: a dictionary of the same 100k responses behind a lock (issue 42: ≤ 2.5×).
    let dictionary = Mutex<[String: PipelineResponse]>([:])
    for index in 0..<keyCount {
        let response = PipelineResponse(head: HTTPResponse(status: .ok, headerFields: [.cacheControl: "max-age=31536000"]), body: MemoryHitFixture.body)
        dictionary.withLock { $0["http://origin.test/n/\(index)"] = response }
    }
    let dictionaryProbes = probes.map { "\($0.scheme ?? "http")://\($0.authority ?? "")\($0.path ?? "/")" }
    var dictionaryNext = 0
    next = 0
    try await comparePaired(("full chain memory hit (vs a dictionary)", "a dictionary behind a lock, 100k keys"), plan: plan, calls: 20_000, target: "≤ 2.5") {
        let response = try await client.data(for: probes[next & 1023])
        next &+= 1
        precondition(response.cacheStatus == .hit)
    } _: {
        let found = dictionary.withLock { $0[dictionaryProbes[dictionaryNext & 1023]] }
        dictionaryNext &+= 1
        precondition(found != nil)
    }

    // The pipeline's own work on a miss (issue 42: ≤ 5 µs): a miss through the whole chain, stored, over a transport
    // that answers at once, next to that transport alone; the difference of the two is the pipeline's.
    printSection("The pipeline's own work on a miss: a transport that answers at once (paired rounds)")
    let instant = InstantTransport(response: PipelineResponse(
        head: HTTPResponse(status: .ok, headerFields: [.cacheControl: "max-age=600", .contentLength: "64"]), body: MemoryHitFixture.body
    ))
    let missClient = HTTPCacheClient(transport: instant, configuration: .init(storage: MemoryStorage(capacity: 64 << 20)))
    var missNext = 0
    var transportNext = 0
    let context = InterceptorContext(storage: MemoryStorage(capacity: 0))
    try await comparePaired(("full chain miss, transport answers at once", "the transport alone"), plan: plan, calls: 20_000) {
        let response = try await missClient.data(for: try HTTPRequest(url: "http://origin.test/miss/\(missNext)"))
        missNext &+= 1
        precondition(response.cacheStatus == .miss)
    } _: {
        let response = try await instant.send(PipelineRequest(head: try HTTPRequest(url: "http://origin.test/miss/\(transportNext)")), context: context)
        transportNext &+= 1
        precondition(response.head.status == .ok)
    }

    printSection("Memory hits from 2 tasks vs 1 task, 100k keys (paired rounds, throughput)")
    try await compareThroughputPaired(("hits, 2 tasks", "hits, 1 task"), plan: plan, calls: 40_000, target: "≥ 1.7") { total in
        try await runConcurrently(tasks: 2, total: total) { index in
            let response = try await client.data(for: probes[index & 1023])
            precondition(response.cacheStatus == .hit)
        }
    } _: { total in
        try await runConcurrently(tasks: 1, total: total) { index in
            let response = try await client.data(for: probes[index & 1023])
            precondition(response.cacheStatus == .hit)
        }
    }

    printSection("Memory store into a cache of 100k entries, entries built beforehand (paired rounds)")
    let prebuilt = (0..<keyCount).map { freshEntry(path: "/n/\($0)", body: MemoryHitFixture.body) }
    let foundationResponses = urlRequests.map {
        CachedURLResponse(response: MemoryHitFixture.response(for: $0), data: MemoryHitFixture.bodyData)
    }
    var storeNext = 0
    var foundationStoreNext = 0
    await comparePaired(("MemoryStorage.store, 100k entries", "URLCache.storeCachedResponse, 100k entries"), plan: plan, calls: 20_000) {
        await storage.store(prebuilt[storeNext % keyCount])
        storeNext &+= 1
    } _: {
        let index = foundationStoreNext % keyCount
        urlCache.storeCachedResponse(foundationResponses[index], for: urlRequests[index])
        foundationStoreNext &+= 1
    }
}

