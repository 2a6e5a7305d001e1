import CacheChain
import CacheChainTesting
import Foundation
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
    try await comparePaired(("full chain memory hit, 100k keys", "URLCache.cachedResponse, 100k keys"), plan: plan, calls: 20_000, target: "≤ 0.333") {
        let response = try await client.data(for: probes[next & 1023])
        next &+= 1
        precondition(response.cacheStatus == .hit)
    } _: {
        precondition(urlCache.cachedResponse(for: urlProbes[foundationNext & 1023]) != nil)
        foundationNext &+= 1
    }

    printSection("Memory hits from 2 tasks vs 1 task, 100k keys (paired rounds, throughput)")
    try await compareThroughputPaired(("hits, 2 tasks", "hits, 1 task"), plan: plan, calls: 40_000, target: "≥ 1.6") { total in
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
