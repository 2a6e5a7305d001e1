import CacheChain
import CacheChainCurl
import CacheChainLoopback
import Foundation

/// The `loops` group of the paired run (`BENCH_PAIRED=loops`, not in the default run): `CurlTransport` with two
/// libcurl threads next to one, in the same rounds, for sequential small misses and for 8 concurrent ones — the
/// measurement behind `CurlTransport.Configuration.loopCount`'s default — and, over HTTPS/2, what keeping an origin's
/// requests on one connection (one thread) costs against one connection per thread.
func runPairedLoopCountRows(plan: PairedPlan) async throws {
    let origin = try await LoopbackOrigin.start()
    defer { Task { try? await origin.shutdown() } }
    origin.route("/small", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: .generated(count: 512)))
    let one = CurlTransport(configuration: .init(loopCount: 1))
    let two = CurlTransport(configuration: .init(loopCount: 2))
    defer { Task { await one.shutdown(); await two.shutdown() } }
    let clientOne = HTTPCacheClient(transport: one, configuration: .init(storage: MemoryStorage(capacity: 256 << 20)))
    let clientTwo = HTTPCacheClient(transport: two, configuration: .init(storage: MemoryStorage(capacity: 256 << 20)))
    let request = try HTTPRequest(url: origin.url("/small"))

    printSection("Sequential small misses: loopCount 2 vs loopCount 1 (paired rounds)")
    try await comparePaired(("small miss, loopCount 2", "small miss, loopCount 1"), plan: plan, calls: 400, resourceUse: true) {
        let response = try await clientTwo.data(for: request, cachePolicy: .reloadIgnoringLocalCacheData)
        precondition(response.cacheStatus == .miss && response.body.count == 512)
    } _: {
        let response = try await clientOne.data(for: request, cachePolicy: .reloadIgnoringLocalCacheData)
        precondition(response.cacheStatus == .miss && response.body.count == 512)
    }

    // Distinct URLs, so request coalescing does not merge the concurrent calls (as in the network rows).
    let distinct = try (0..<4096).map { try HTTPRequest(url: origin.url("/small?n=\($0)")) }
    for tasks in [8, 64] {
        printSection("\(tasks) concurrent small misses: loopCount 2 vs loopCount 1 (paired rounds, throughput)")
        try await compareThroughputPaired(
            ("\(tasks) concurrent misses, loopCount 2", "\(tasks) concurrent misses, loopCount 1"), plan: plan, calls: 2_000,
            resourceUse: true
        ) { total in
            try await runConcurrently(tasks: tasks, total: total) { index in
                let response = try await clientTwo.data(for: distinct[index & 4095], cachePolicy: .reloadIgnoringLocalCacheData)
                precondition(response.cacheStatus == .miss && response.body.count == 512)
            }
        } _: { total in
            try await runConcurrently(tasks: tasks, total: total) { index in
                let response = try await clientOne.data(for: distinct[index & 4095], cachePolicy: .reloadIgnoringLocalCacheData)
                precondition(response.cacheStatus == .miss && response.body.count == 512)
            }
        }
    }

    try await runPairedHTTP2ConnectionRows(plan: plan)
}

/// 64 concurrent small misses to one HTTPS/2 origin with two libcurl threads: the origin on one thread and one
/// connection (the default, RFC 9113 §9.1) against one connection per thread.
private func runPairedHTTP2ConnectionRows(plan: PairedPlan) async throws {
    let origin = try await LoopbackOrigin.start(tls: true)
    defer { Task { try? await origin.shutdown() } }
    origin.route("/small", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: .generated(count: 512)))
    let caFile = try LoopbackCertificate.writeCertificate(to: NSTemporaryDirectory())
    let pinned = CurlTransport(configuration: .init(caFile: caFile, loopCount: 2))
    var spreadConfiguration = CurlTransport.Configuration(caFile: caFile, loopCount: 2)
    spreadConfiguration.keepsHTTP2OriginsOnOneThread = false
    let spread = CurlTransport(configuration: spreadConfiguration)
    defer { Task { await pinned.shutdown(); await spread.shutdown() } }
    let clientPinned = HTTPCacheClient(transport: pinned, configuration: .init(storage: MemoryStorage(capacity: 256 << 20)))
    let clientSpread = HTTPCacheClient(transport: spread, configuration: .init(storage: MemoryStorage(capacity: 256 << 20)))
    let distinct = try (0..<4096).map { try HTTPRequest(url: origin.url("/small?n=\($0)")) }
    printSection("64 concurrent HTTPS/2 misses, loopCount 2: one connection (default) vs one per thread (paired rounds, throughput)")
    try await compareThroughputPaired(
        ("64 concurrent HTTPS/2 misses, one connection", "64 concurrent HTTPS/2 misses, one per thread"), plan: plan,
        calls: 2_000, resourceUse: true
    ) { total in
        try await runConcurrently(tasks: 64, total: total) { index in
            let response = try await clientPinned.data(for: distinct[index & 4095], cachePolicy: .reloadIgnoringLocalCacheData)
            precondition(response.cacheStatus == .miss && response.body.count == 512)
        }
    } _: { total in
        try await runConcurrently(tasks: 64, total: total) { index in
            let response = try await clientSpread.data(for: distinct[index & 4095], cachePolicy: .reloadIgnoringLocalCacheData)
            precondition(response.cacheStatus == .miss && response.body.count == 512)
        }
    }
    // More than 1 + 2: the origin's rapid-reset protection closes connections under this load (CurlConnectionRetryTests).
    print("connections opened by both transports: \(origin.connectionCount)")
}
