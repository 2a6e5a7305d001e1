import CacheChain
import CacheChainCurl
import CacheChainLoopback
import Foundation
import Synchronization

/// Scenario 8 (what runs without disk storage): peak resident memory while filling a 256 MiB memory cache
/// to twice its capacity (it must stay near capacity), and while downloading a 1 GiB body through
/// `CurlTransport` (spooled to a file: it must stay near `inMemoryBodyLimit`, not near 1 GiB).
func runMemoryFootprintScenarios() async throws {
    printSection("Peak resident memory (VmHWM growth)")
    let capacity = 256 << 20
    let storage = MemoryStorage(capacity: capacity)
    let body = HTTPBody([UInt8](repeating: 3, count: 64 << 10))
    resetPeakResident()
    let before = procStatusKiB("VmRSS:") ?? 0
    for index in 0..<(2 * capacity / (64 << 10)) {
        // A fresh array per entry, as a network response would be.
        await storage.store(freshEntry(path: "/fill/\(index)", body: HTTPBody(try body.collect())))
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
