import CacheChain
import CacheChainTesting
import Foundation
import HTTPTypes

/// Scenario 4 (memory tier): hit latency through the full chain with 1k, 100k and 1M stored entries, each
/// next to the 1k figure of the same run: the cost should not grow with the number of entries.
/// BENCH_SCALE_MAX caps the largest size (default 1,000,000).
func runScaleScenarios(iterations: Int) async throws {
    let maximum = Int(ProcessInfo.processInfo.environment["BENCH_SCALE_MAX"] ?? "") ?? 1_000_000
    let sizes = [1_000, 100_000, 1_000_000].filter { $0 <= maximum }
    printSection("Memory hit latency vs number of stored entries (full chain, 64-byte bodies)")
    var smallest: Measurement?
    for size in sizes {
        let storage = MemoryStorage(capacity: Int.max / 2)
        let body = PipelineBody([UInt8](repeating: 7, count: 64))
        let fillStart = ContinuousClock.now
        for index in 0..<size {
            await storage.store(freshEntry(path: "/n/\(index)", body: body))
        }
        let fill = ContinuousClock.now - fillStart
        let client = HTTPCacheClient(transport: ScriptedTransport(), configuration: .init(storage: storage))
        // Probe keys spread over the whole range, in a scrambled order.
        let probes = try (0..<1024).map { try HTTPRequest(url: "http://origin.test/n/\(($0 &* 7919) % size)") }
        var next = 0
        let hit = try await measure("hit with \(size) entries", iterations: iterations, warmUp: 1000) {
            let response = try await client.data(for: probes[next & 1023])
            next &+= 1
            precondition(response.cacheStatus == .hit)
        }
        print("   (filled \(size) entries in \(fill), \(residentMiB()) MiB resident)")
        if let smallest { printComparison(hit, smallest) } else { smallest = hit }
    }
}

/// The process's resident set size in MiB (VmRSS), or -1 when /proc is unavailable.
func residentMiB() -> Int {
    procStatusKiB("VmRSS:").map { $0 / 1024 } ?? -1
}

/// A `kB` figure from /proc/self/status (e.g. `VmRSS:`, `VmHWM:`).
func procStatusKiB(_ field: String) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix(field) {
        return Int(line.dropFirst(field.count).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
    }
    return nil
}

/// Resets the peak RSS (VmHWM) so the next reading covers only what follows.
func resetPeakResident() {
    try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
}

/// A fresh entry for `http://origin.test<path>` (max-age of a year, stored now).
func freshEntry(path: String, body: PipelineBody) -> CacheEntry {
    let request = HTTPRequest(method: .get, scheme: "http", authority: "origin.test", path: path)
    var response = HTTPResponse(status: .ok)
    response.headerFields[.cacheControl] = "max-age=31536000"
    response.headerFields[.contentLength] = String(body.count)
    return CacheEntry(request: request, cached: CachedResponse(response: response, body: body, requestTime: Date()))
}
