import CacheChain
import CacheChainTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Disk backend (issue #4): hit and store for 1 KiB, 64 KiB and 1 MiB bodies next to a plain
/// open+read+close of a file of the same size and Foundation's disk `URLCache`; lookup latency at 1k, 100k
/// and 1M entries (BENCH_DISK_SCALE_MAX caps it, default 1,000,000); open time of the largest cache.
/// BENCH_DISK_SIZES=1048576 measures only the hits (and their plain-read baseline) of the sizes listed, for profiling;
/// the word `scale` in the list runs the lookup-vs-entry-count scenario too (BENCH_DISK_SIZES=scale runs only it).
/// BENCH_DISK_SCALE_DIR=<dir> keeps the scale scenario's filled caches in `<dir>` and reuses them on the next
/// run (filling 1M entries takes about a minute), for profiling and comparing builds of the same format;
/// BENCH_DISK_SCALE_ONLY=<n> measures only the cache of n entries (a profile then shows that size alone).
func runDiskScenarios(iterations: Int) async throws {
    let base = NSTemporaryDirectory() + "cachechain-bench-disk-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: base) }
    try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
    let stored = 100
    let profiledList = (ProcessInfo.processInfo.environment["BENCH_DISK_SIZES"] ?? "").split(separator: ",")
    let profiled = profiledList.compactMap { Int($0) }
    let profilesScale = profiledList.contains("scale")
    for (label, size) in [("1 KiB", 1 << 10), ("64 KiB", 64 << 10), ("1 MiB", 1 << 20)] where (profiled.isEmpty && !profilesScale) || profiled.contains(size) {
        let rounds = size >= 1 << 20 ? min(iterations, 5_000) : min(iterations, 50_000)
        let body = PipelineBody((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let storage = try DiskStorage(directory: "\(base)/disk-\(size)", capacity: 4 << 30)
        for index in 0..<stored { try await storage.store(freshEntry(path: "/d/\(index)", body: body)) }
        let keys = (0..<stored).map { CacheKey(method: "GET", scheme: "http", authority: "origin.test", path: "/d/\($0)") }
        let files = (0..<stored).map { "\(base)/plain-\(size)-\($0)" }
        for file in files { try Data(try body.collect()).write(to: URL(fileURLWithPath: file)) }
        var next = 0
        var plainNext = 0
        // Alternating blocks: the hit and the plain read are timed on the same machine state.
        let (hit, plain) = try await measureAlternating(
            ("DiskStorage hit \(label)", "open+read+close \(label) file"), iterations: rounds
        ) {
            let found = try await storage.entries(for: keys[next % stored])
            next &+= 1
            precondition(found.first?.cached.body.count == size)
        } _: {
            precondition(readWholeFile(files[plainNext % stored], size: size) == size)
            plainNext &+= 1
        }
        if !profiled.isEmpty || profilesScale {
            printSection("Disk hit, \(label) body (\(stored) entries; profiling: no URLCache, no stores)")
            printComparison(hit, plain)
            continue
        }

        let urlCache = URLCache(memoryCapacity: 0, diskCapacity: 4 << 30, diskPath: "\(base)/urlcache-\(size)")
        let data = Data(try body.collect())
        let requests = (0..<stored).map { URLRequest(url: URL(string: "http://origin.test/d/\($0)")!) }  // invariant: literal URL
        for request in requests {
            let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Cache-Control": "max-age=31536000"])!  // invariant: valid arguments
            urlCache.storeCachedResponse(CachedURLResponse(response: response, data: data), for: request)
        }
        var foundationNext = 0
        // Foundation's disk URLCache takes milliseconds per call: fewer samples.
        let foundationRounds = size >= 1 << 20 ? 20 : size >= 64 << 10 ? 100 : 500
        let foundation = await measure("URLCache disk hit \(label)", iterations: foundationRounds, warmUp: 5) {
            precondition(urlCache.cachedResponse(for: requests[foundationNext % stored])?.data.count == size)
            foundationNext &+= 1
        }
        printSection("Disk hit, \(label) body (\(stored) entries; lookup + checked body in memory)")
        printComparison(hit, plain)
        printComparison(hit, foundation)

        let fresh = try DiskStorage(directory: "\(base)/store-\(size)", capacity: 4 << 30)
        var storeNext = 0
        let store = try await measure("DiskStorage.store \(label) (fast)", iterations: min(rounds, 5_000), warmUp: 0) {
            try await fresh.store(freshEntry(path: "/s/\(storeNext)", body: body))
            storeNext &+= 1
        }
        let storeCache = URLCache(memoryCapacity: 0, diskCapacity: 4 << 30, diskPath: "\(base)/urlcache-store-\(size)")
        var foundationStoreNext = 0
        let foundationStore = await measure("URLCache disk store \(label)", iterations: foundationRounds, warmUp: 0) {
            let request = URLRequest(url: URL(string: "http://origin.test/s/\(foundationStoreNext)")!)  // invariant: literal URL
            let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Cache-Control": "max-age=31536000"])!  // invariant: valid arguments
            storeCache.storeCachedResponse(CachedURLResponse(response: response, data: data), for: request)
            foundationStoreNext &+= 1
        }
        printSection("Disk store, \(label) body")
        printComparison(store, foundationStore)
    }
    if profiled.isEmpty || profilesScale { try await runDiskScaleScenarios(iterations: iterations, base: base) }
}

/// Lookup latency with 1k, 100k and 1M entries (64-byte bodies), and the open time of the largest cache; next
/// to it, at each size, the index's own query alone (``RawSQLiteLookup``), whose growth is the B-tree's.
///
/// The caches are filled first, then measured interleaved — rounds of 1,000 lookups on each in turn — so
/// that a change in the machine's load (the fills write gigabytes, the machine is shared) lands on every
/// size alike instead of on whichever was measured last.
func runDiskScaleScenarios(iterations: Int, base: String) async throws {
    let maximum = Int(ProcessInfo.processInfo.environment["BENCH_DISK_SCALE_MAX"] ?? "") ?? 1_000_000
    let only = Int(ProcessInfo.processInfo.environment["BENCH_DISK_SCALE_ONLY"] ?? "")
    let sizes = [1_000, 100_000, 1_000_000].filter { $0 <= maximum && (only == nil || only == $0) }
    printSection("Disk hit latency vs number of stored entries (64-byte bodies)")
    let body = PipelineBody([UInt8](repeating: 7, count: 64))
    var caches: [(size: Int, storage: DiskStorage, probes: [CacheKey], raw: RawSQLiteLookup)] = []
    let kept = ProcessInfo.processInfo.environment["BENCH_DISK_SCALE_DIR"]
    for size in sizes {
        let directory = "\(kept ?? base)/scale-\(size)"
        let filledMarker = directory + "/filled-by-benchmark"
        let fillStart = ContinuousClock.now
        if kept == nil || !FileManager.default.fileExists(atPath: filledMarker) {
            let storage = try DiskStorage(directory: directory, capacity: 8 << 30)
            for index in 0..<size { try await storage.store(freshEntry(path: "/n/\(index)", body: body)) }
            guard FileManager.default.createFile(atPath: filledMarker, contents: nil) else { throw BenchmarkError("cannot write \(filledMarker)") }
        }
        let fill = ContinuousClock.now - fillStart
        let openStart = ContinuousClock.now
        let storage = try DiskStorage(directory: directory, capacity: 8 << 30)
        let opened = ContinuousClock.now - openStart
        let firstKey = CacheKey(method: "GET", scheme: "http", authority: "origin.test", path: "/n/\(size / 2)")
        let firstStart = ContinuousClock.now
        let firstFound = try await storage.entries(for: firstKey)
        precondition(firstFound.count == 1)
        let first = ContinuousClock.now - firstStart
        let indexPath = directory + "/v\(DiskStorage.formatVersion)/index.sqlite"
        let indexSize = indexFileSize(indexPath)
        print("   (filled \(size) entries in \(fill); open \(opened); first lookup \(first); index \(indexSize >> 20) MiB)")
        let probes = (0..<1024).map { CacheKey(method: "GET", scheme: "http", authority: "origin.test", path: "/n/\(($0 &* 7919) % size)") }
        caches.append((size, storage, probes, try RawSQLiteLookup(indexPath: indexPath, keys: probes.map(\.stringValue))))
    }
    let round = 1_000
    let rounds = max(1, min(iterations, 50_000) / round)
    var results = caches.map { Measurement(name: "disk hit with \($0.size) entries", samples: []) }
    var rawResults = caches.map { Measurement(name: "raw SQLite lookup, \($0.size) entries", samples: []) }
    var next = 0
    for cache in caches {
        _ = try await measure("warm-up", iterations: 0, warmUp: round) {
            _ = try await cache.storage.entries(for: cache.probes[next & 1023])
            next &+= 1
        }
        _ = await measure("warm-up", iterations: 0, warmUp: round) { _ = cache.raw.lookUpNext() }
    }
    for _ in 0..<rounds {
        for (position, cache) in caches.enumerated() {
            let batch = try await measure(results[position].name, iterations: round, warmUp: 0) {
                let found = try await cache.storage.entries(for: cache.probes[next & 1023])
                next &+= 1
                precondition(found.count == 1)
            }
            results[position].samples += batch.samples
            let rawBatch = await measure(rawResults[position].name, iterations: round, warmUp: 0) {
                precondition(cache.raw.lookUpNext() == 1)
            }
            rawResults[position].samples += rawBatch.samples
        }
    }
    print("   (measured interleaved: \(rounds) rounds of \(round) lookups per size)")
    if results.count == 1, let only = results.first {
        print(String(format: "%@ p50 %.2f µs  p99 %.2f µs", only.name, only.percentile(50) / 1000, only.percentile(99) / 1000))
    } else if let smallest = results.first, let rawSmallest = rawResults.first {
        for larger in results.dropFirst() { printComparison(larger, smallest) }
        // The same growth for the index's own query alone: what the B-tree costs on this machine.
        for larger in rawResults.dropFirst() { printComparison(larger, rawSmallest) }
    }
    for (ours, raw) in zip(results, rawResults) { printComparison(ours, raw) }
}

/// open + read + close of a whole file into a new array: the floor a disk hit is compared with.
func readWholeFile(_ path: String, size: Int) -> Int {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return -1 }
    defer { close(descriptor) }
    let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
        var done = 0
        while done < size {
            let count = read(descriptor, buffer.baseAddress! + done, size - done)  // invariant: capacity > 0
            if count <= 0 { break }
            done += count
        }
        initialized = done
    }
    return bytes.count
}

/// The size of a file in bytes, or -1.
func indexFileSize(_ path: String) -> Int {
    var status = stat()
    return stat(path, &status) == 0 ? Int(status.st_size) : -1
}
