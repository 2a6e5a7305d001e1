import CacheChain
import CacheChainCurl
import CacheChainEncryption
import CacheChainLoopback
import Foundation
import Synchronization

/// Scenario 8 (what runs without disk storage): peak resident memory while filling a 256 MiB memory cache
/// to twice its capacity (it must stay near capacity), and while downloading a 1 GiB body through
/// `CurlTransport` (spooled to a file: it must stay near `inMemoryBodyLimit`, not near 1 GiB), then storing
/// that gigabyte in a `DiskStorage` through the client (MISS) and serving it back from disk (HIT).
func runMemoryFootprintScenarios() async throws {
    printSection("Peak resident memory (VmHWM growth)")
    let capacity = 256 << 20
    let storage = MemoryStorage(capacity: capacity)
    resetPeakResident()
    let before = procStatusKiB("VmRSS:") ?? 0
    for index in 0..<(2 * capacity / (64 << 10)) {
        // A fresh array per entry, as a network response would be (one shared array would make the cache
        // hold 4,096 references to the same 64 KiB and measure nothing).
        let bytes = [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: 64 << 10)
        await storage.store(freshEntry(path: "/fill/\(index)", body: PipelineBody(bytes)))
    }
    let peak = procStatusKiB("VmHWM:") ?? 0
    let usage = await storage.usage()
    printFootprint(
        "fill 256 MiB memory cache with 512 MiB of 64 KiB bodies",
        growthMiB: Double(peak - before) / 1024,
        referenceMiB: Double(capacity) / 1_048_576,
        note: "cache holds \(usage.memoryBytes >> 20) MiB in \(usage.entryCount) entries"
    )

    let origin = try await LoopbackOrigin.start()
    let size = 1 << 30
    origin.route("/gib", LoopbackRoute(headers: [("Cache-Control", "no-store")], body: .generated(count: size)))
    let transport = CurlTransport()
    resetPeakResident()
    let beforeDownload = procStatusKiB("VmRSS:") ?? 0
    let response = try await transport.send(PipelineRequest(head: HTTPRequest(url: origin.url("/gib"))), context: InterceptorContext(storage: MemoryStorage(capacity: 0)))
    precondition(response.body.count == size && response.body.file != nil)
    let downloadPeak = procStatusKiB("VmHWM:") ?? 0
    printFootprint(
        "download a 1 GiB body through CurlTransport",
        growthMiB: Double(downloadPeak - beforeDownload) / 1024,
        referenceMiB: Double(size) / 1_048_576,
        note: "spooled to a file; inMemoryBodyLimit \(CurlTransport.Configuration().inMemoryBodyLimit >> 20) MiB"
    )

    // The same gigabyte through the whole client over a DiskStorage: the MISS stores it (the spool file
    // is copied into the cache in chunks), the HIT serves it from its file; the body is read in 1 MiB chunks.
    let directory = NSTemporaryDirectory() + "cachechain-bench-gib-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    origin.route("/gib-cached", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: .generated(count: size)))
    let disk = try DiskStorage(directory: directory + "/plain", capacity: 40 << 30)   // 1 GiB is within Apple's 5% rule
    var encrypted = HTTPCacheClient.Configuration(storage: disk)
    // Everything encrypted, since the loopback origin here is plain HTTP.
    encrypted.encryptHTTPS(
        with: EncryptedStorage(
            wrapping: try DiskStorage(directory: directory + "/encrypted", capacity: 40 << 30),
            keys: InMemoryKeyProvider(key: try .random()),
            spoolDirectory: directory + "/spool"
        ),
        mode: .encryptEverything
    )
    let clients = [
        ("DiskStorage", HTTPCacheClient(transport: transport, configuration: .init(storage: disk)), "/gib-cached"),
        ("EncryptedStorage(DiskStorage)", HTTPCacheClient(transport: transport, configuration: encrypted), "/gib-cached?sealed"),
    ]
    for (backend, client, path) in clients {
        let request = try HTTPRequest(url: origin.url(path))
        for (label, expected) in [("MISS: download and store", CacheStatus.miss), ("HIT: serve from disk", .hit)] {
            resetPeakResident()
            let before = procStatusKiB("VmRSS:") ?? 0
            let response = try await client.data(for: request)
            var read = 0
            try response.body.forEachChunk(maximumSize: 1 << 20) { read += $0.count }
            let peak = procStatusKiB("VmHWM:") ?? 0
            precondition(response.cacheStatus == expected && read == size, "\(label): \(response.cacheStatus), \(read) bytes")
            printFootprint(
                "1 GiB, HTTPCacheClient + \(backend), \(label)",
                growthMiB: Double(peak - before) / 1024,
                referenceMiB: Double(size) / 1_048_576,
                note: "body read in 1 MiB chunks"
            )
        }
    }
    try await origin.shutdown()
}

/// Prints (and records) a memory row: growth of peak RSS next to a reference size.
func printFootprint(_ name: String, growthMiB: Double, referenceMiB: Double, note: String) {
    let ratio = referenceMiB > 0 ? growthMiB / referenceMiB : 0
    let section = currentSection.withLock { $0 }
    let figures = ResultRow.Figures(name: name, p50Microseconds: 0, p99Microseconds: 0, opsPerSecond: 0, samples: 1)
    recordedRows.withLock {
        $0.append(ResultRow(
            section: section,
            ours: figures,
            baseline: ResultRow.Figures(name: "reference size \(Int(referenceMiB)) MiB", p50Microseconds: 0, p99Microseconds: 0, opsPerSecond: 0, samples: 0),
            ratio: ratio,
            peakGrowthMiB: growthMiB
        ))
    }
    print(String(format: "%-58@ peak RSS +%8.1f MiB | reference %7.0f MiB | ratio %5.2f× (%@)", name as NSString, growthMiB, referenceMiB, ratio, note as NSString))
}
