import CXXHash
import CacheChain
import CacheChainEncryption
import CacheChainTesting
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The disk rows of the paired run (issue 29): `DiskStorage` hits of 1 KiB and 1 MiB next to open+read+close
/// of the same bytes; the full chain over disk; a durable store next to write+fsync+rename of the same bytes;
/// and the physical floors of a 1 MiB hit — the read, an XXH3 pass, an AES-256-GCM seal — each next to a
/// 1 MiB memcpy, in the same run.
func runPairedDiskRows(plan: PairedPlan) async throws {
    let base = NSTemporaryDirectory() + "cachechain-bench-paired-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: base) }
    try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
    let stored = 100

    for (label, size, calls, target) in [("1 KiB", 1 << 10, 2_000, "≤ 2"), ("1 MiB", 1 << 20, 100, "≤ 1.5")] {
        printSection("Disk hit, \(label) body, every read checked (paired rounds)")
        let body = PipelineBody((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let storage = try DiskStorage(directory: "\(base)/disk-\(size)", capacity: 4 << 30)
        for index in 0..<stored { try await storage.store(freshEntry(path: "/d/\(index)", body: body)) }
        let keys = (0..<stored).map { CacheKey(method: "GET", scheme: "http", authority: "origin.test", path: "/d/\($0)") }
        let files = (0..<stored).map { "\(base)/plain-\(size)-\($0)" }
        for file in files { try Data(try body.collect()).write(to: URL(fileURLWithPath: file)) }
        var next = 0
        var plainNext = 0
        try await comparePaired(("DiskStorage hit \(label)", "open+read+close \(label)"), plan: plan, calls: calls, target: target) {
            let found = try await storage.entries(for: keys[next % stored])
            next &+= 1
            let bytes = try found.first?.cached.body.collect()
            precondition(bytes?.count == size)
        } _: {
            precondition(readWholeFile(files[plainNext % stored], size: size) == size)
            plainNext &+= 1
        }

        if size == 1 << 10 {
            printSection("Full chain over disk, \(label) body (paired rounds)")
            let client = HTTPCacheClient(transport: ScriptedTransport(), configuration: .init(storage: storage))
            let requests = try (0..<stored).map { try HTTPRequest(url: "http://origin.test/d/\($0)") }
            try await comparePaired(("full chain disk hit \(label)", "open+read+close \(label)"), plan: plan, calls: calls, target: "≤ 3") {
                let response = try await client.data(for: requests[next % stored])
                next &+= 1
                precondition(response.cacheStatus == .hit)
            } _: {
                precondition(readWholeFile(files[plainNext % stored], size: size) == size)
                plainNext &+= 1
            }
            try await runPoolTailRow(storage: storage, keys: keys, plan: plan)
        }
    }

    printSection("Durable store, 64 KiB body (paired rounds)")
    let durableBody = PipelineBody([UInt8](repeating: 3, count: 64 << 10))
    let durableBytes = try durableBody.collect()
    let durable = try DiskStorage(directory: "\(base)/durable", capacity: 4 << 30, durability: .durable)
    var durableNext = 0
    var plainDurableNext = 0
    try await comparePaired(("DiskStorage.store 64 KiB (durable)", "write+fsync+rename 64 KiB"), plan: plan, calls: 20, warmUp: 3) {
        try await durable.store(freshEntry(path: "/durable/\(durableNext % 200)", body: durableBody))
        durableNext &+= 1
    } _: {
        try writeDurably(durableBytes, to: "\(base)/durable-plain-\(plainDurableNext % 200)", directory: base)
        plainDurableNext &+= 1
    }

    printSection("Physical floors of a 1 MiB hit, each next to a 1 MiB memcpy (paired rounds)")
    let size = 1 << 20
    let source = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    var destination = [UInt8](repeating: 0, count: size)
    let floorFile = "\(base)/floor-1MiB"
    try Data(source).write(to: URL(fileURLWithPath: floorFile))
    let copy = {
        source.withUnsafeBytes { from in
            destination.withUnsafeMutableBytes { to in to.copyMemory(from: from) }
        }
    }
    await comparePaired(("open+read+close 1 MiB", "memcpy 1 MiB"), plan: plan, calls: 200) {
        precondition(readWholeFile(floorFile, size: size) == size)
    } _: { copy() }
    await comparePaired(("XXH3-64 of 1 MiB", "memcpy 1 MiB"), plan: plan, calls: 200) {
        let hash = source.withUnsafeBytes { XXH3_64bits($0.baseAddress, $0.count) }
        precondition(hash != 0)
    } _: { copy() }
    let key = try SecureRandom.bytes(32)
    try await comparePaired(("AES-256-GCM seal 1 MiB (64 KiB segments)", "memcpy 1 MiB"), plan: plan, calls: 100) {
        try source.withUnsafeBytes { from in
            try destination.withUnsafeMutableBytes { to in
                try AES256GCM.sealSegments(from, into: to, key: key, segmentSize: 64 << 10)
            }
        }
    } _: { copy() }
}

/// Writes bytes the way a durable store must: a temporary file, `fsync`, rename over the name, `fsync` of the
/// directory.
func writeDurably(_ bytes: [UInt8], to path: String, directory: String) throws {
    let temporary = path + ".tmp"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw BenchmarkError("cannot create \(temporary)") }
    let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    fsync(descriptor)
    close(descriptor)
    guard written == bytes.count, rename(temporary, path) == 0 else { throw BenchmarkError("cannot write \(path)") }
    let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if directoryDescriptor >= 0 {
        fsync(directoryDescriptor)
        close(directoryDescriptor)
    }
}

/// What a disk hit on the caller's thread costs the other tasks of the cooperative pool (issue 42.4): the p99 of how
/// late a 200 µs sleep of an unrelated task wakes while one task per core serves 1 KiB disk hits, next to the same
/// sleep with the pool idle. Against a previous build (`--against`), the *new / old* column compares hits on the
/// caller's thread with hits that cross to the storage's thread.
func runPoolTailRow(storage: DiskStorage, keys: [CacheKey], plan: PairedPlan) async throws {
    printSection("Unrelated tasks while every pool thread serves 1 KiB disk hits (paired rounds, p99)")
    let loaders = ProcessInfo.processInfo.activeProcessorCount
    let samples = plan.calls(400)
    /// One round: the p99 lateness of `samples` sleeps, with `loaders` tasks serving hits meanwhile when `loaded`.
    func round(loaded: Bool) async throws -> (Double, ResourceUse) {
        let start = ResourceUse.now()
        let stop = LockedFlag()
        let lateness = try await withThrowingTaskGroup(of: [Double].self) { group in
            if loaded {
                for loader in 0..<loaders {
                    group.addTask {
                        var next = loader
                        while !stop.isSet {
                            _ = try await storage.entries(for: keys[next % keys.count])
                            next &+= 1
                            // Each hit stands for a request of its own, a task that ends: without a yield a hit read on
                            // the caller's thread never suspends, the loaders hold every pool thread and the measuring
                            // task never runs (the row hung in the 2026-12-07 run).
                            await Task.yield()
                        }
                        return []
                    }
                }
            }
            group.addTask {
                defer { stop.set() }
                let clock = ContinuousClock()
                var late: [Double] = []
                late.reserveCapacity(samples)
                for _ in 0..<samples {
                    let begin = clock.now
                    try await Task.sleep(for: .microseconds(200))
                    late.append(((clock.now - begin) - .microseconds(200)).nanoseconds)
                }
                return late
            }
            var all: [Double] = []
            for try await part in group { all += part }
            return all
        }
        var use = ResourceUse()
        use.add(since: start, calls: samples)
        let sorted = lateness.sorted()
        return (sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))], use)
    }
    let name = "p99 sleep lateness, \(loaders) tasks on disk hits"
    if PreviousBuild.isWorker {
        try await PreviousBuild.serve(row: name, warmUp: {}) { _ in try await round(loaded: true) }
        return
    }
    let worker = PreviousBuild.worker
    worker?.start(row: name)
    var subject = PairedSide(name: name)
    var baseline = PairedSide(name: "p99 sleep lateness, pool idle")
    var previous = worker.map { _ in PairedSide(name: "previous build") }
    for _ in 0..<plan.pairs {
        let (loaded, loadedUse) = try await round(loaded: true)
        subject.roundFigures.append(loaded)
        subject.use.add(loadedUse)
        let (idle, idleUse) = try await round(loaded: false)
        baseline.roundFigures.append(idle)
        baseline.use.add(idleUse)
        if let worker {
            let (figure, use) = worker.round(calls: samples)
            previous?.roundFigures.append(figure)
            previous?.use.add(use)
        }
    }
    worker?.finish(row: name)
    printPaired(PairedRow(
        section: currentSection.withLock { $0 }, kind: .latency, subject: subject, baseline: baseline, previous: previous,
        reportsResourceUse: false
    ))
}

/// A flag one task sets and others poll.
final class LockedFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .relaxed) }
    func set() { flag.store(true, ordering: .relaxed) }
}
