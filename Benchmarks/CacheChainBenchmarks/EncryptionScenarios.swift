import CacheChain
import CacheChainEncryption
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Encryption plugin (issue #5): the plugin's AES-256-GCM throughput next to `openssl speed` run in the same
/// process tree, and encrypted vs plain hits over memory and disk for 1 KiB and 1 MiB bodies.
func runEncryptionScenarios(iterations: Int) async throws {
    // Raw AES-256-GCM on 1 MiB buffers, sealed the way the storage seals bodies (one key schedule, one
    // nonce per segment), next to `openssl speed -evp aes-256-gcm -bytes 16384 -seconds 1`.
    let size = 1 << 20
    let key = try SecureRandom.bytes(32)
    let input = try SecureRandom.bytes(size)
    var output = [UInt8](repeating: 0, count: size)
    let rounds = min(iterations, 2_000)
    var gcm: [Measurement] = []
    // BENCH_ENCRYPTION_SIZES (below) set without BENCH_ENCRYPTION_RAW=1 skips the raw cipher rows (for profiling).
    let environment = ProcessInfo.processInfo.environment
    let raw = environment["BENCH_ENCRYPTION_SIZES"] == nil || environment["BENCH_ENCRYPTION_RAW"] == "1"
    for segment in [16 << 10, 64 << 10] where raw {
        gcm.append(try await measure("plugin AES-256-GCM 1 MiB, \(segment >> 10) KiB segments", iterations: rounds, warmUp: 50) {
            try input.withUnsafeBytes { source in
                try output.withUnsafeMutableBytes { destination in
                    try AES256GCM.sealSegments(source, into: destination, key: key, segmentSize: segment)
                }
            }
        })
    }
    let speed = raw ? try opensslSpeed() : (bytesPerSecond: 3.5e9, line: "assumed 3.5 GB/s (openssl speed not run)")
    let opensslPerMiB = Double(size) / speed.bytesPerSecond * 1e9
    let baseline = Measurement(name: "openssl speed \(Int(speed.bytesPerSecond / 1e6)) MB/s (1 MiB at)", samples: [opensslPerMiB])
    if raw { printSection("AES-256-GCM throughput, 1 MiB buffers (ratio < 1.25 = at least 80% of openssl speed)")
    for measurement in gcm {
        printComparison(measurement, baseline)
        let rate = Double(size) / (measurement.percentile(50) / 1e9) / 1e6
        print(String(format: "    %@: %.0f MB/s = %.0f%% of openssl speed (%.0f MB/s)",
                     measurement.name as NSString, rate, rate / (speed.bytesPerSecond / 1e6) * 100, speed.bytesPerSecond / 1e6))
    } }

    let base = NSTemporaryDirectory() + "cachechain-bench-encryption-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: base) }
    try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
    let keys = InMemoryKeyProvider(key: try .random())
    let stored = 100
    // BENCH_ENCRYPTION_SIZES=1024 measures only the 1 KiB hits (for profiling).
    let sizes = (ProcessInfo.processInfo.environment["BENCH_ENCRYPTION_SIZES"] ?? "1024,1048576").split(separator: ",").compactMap { Int($0) }
    for (label, bodySize) in [("1 KiB", 1 << 10), ("1 MiB", 1 << 20)] where sizes.contains(bodySize) {
        let hitRounds = bodySize >= 1 << 20 ? min(iterations, 2_000) : min(iterations, 50_000)
        let body = PipelineBody((0..<bodySize).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let cacheKeys = (0..<stored).map { CacheKey(method: "GET", scheme: "http", authority: "origin.test", path: "/e/\($0)") }
        func fill(_ storage: any CacheStorage) async throws {
            for index in 0..<stored { try await storage.store(freshEntry(path: "/e/\(index)", body: body)) }
        }
        // Each encrypted backend is timed in alternating blocks with its plain counterpart, so both see the
        // same machine state.
        func hits(_ names: (String, String), _ encrypted: any CacheStorage, _ plain: any CacheStorage) async throws -> (Measurement, Measurement) {
            try await fill(encrypted)
            try await fill(plain)
            var next = 0
            var plainNext = 0
            return try await measureAlternating(names, iterations: hitRounds, warmUp: 100) {
                let found = try await encrypted.entries(for: cacheKeys[next % stored])
                next &+= 1
                precondition(found.first?.cached.body.count == bodySize)
            } _: {
                let found = try await plain.entries(for: cacheKeys[plainNext % stored])
                plainNext &+= 1
                precondition(found.first?.cached.body.count == bodySize)
            }
        }
        let (encryptedMemory, plainMemory) = try await hits(
            ("Encrypted(MemoryStorage) hit \(label)", "MemoryStorage hit \(label)"),
            EncryptedStorage(wrapping: MemoryStorage(capacity: 1 << 30), keys: keys), MemoryStorage(capacity: 1 << 30)
        )
        let (encryptedDisk, plainDisk) = try await hits(
            ("Encrypted(DiskStorage) hit \(label)", "DiskStorage hit \(label)"),
            EncryptedStorage(wrapping: try DiskStorage(directory: "\(base)/encrypted-\(bodySize)", capacity: 4 << 30), keys: keys),
            try DiskStorage(directory: "\(base)/plain-\(bodySize)", capacity: 4 << 30)
        )
        printSection("Encrypted vs plain hit, \(label) body (\(stored) entries)")
        printComparison(encryptedMemory, plainMemory)
        printComparison(encryptedDisk, plainDisk)
        if bodySize >= 1 << 20 {
            // Target: within 1.25× of (plain disk hit + openssl's time to process 1 MiB).
            let floor = Measurement(
                name: "plain disk hit + openssl 1 MiB",
                samples: [plainDisk.percentile(50) + opensslPerMiB]
            )
            printComparison(encryptedDisk, floor)
        }
    }
}

/// Runs `openssl speed -evp aes-256-gcm -bytes 16384 -seconds 1` and parses its `AES-256-GCM  NNNk` row
/// (thousands of bytes per second).
private func opensslSpeed() throws -> (bytesPerSecond: Double, line: String) {
    let output = try runWithSignalsUnblocked(["openssl", "speed", "-evp", "aes-256-gcm", "-bytes", "16384", "-seconds", "1"])
    guard let line = output.split(separator: "\n").last(where: { $0.lowercased().hasPrefix("aes-256-gcm") }),
          let figure = line.split(separator: " ").last, figure.hasSuffix("k"), let thousands = Double(figure.dropLast())
    else { throw BenchmarkError("openssl speed printed no AES-256-GCM row: \(output.suffix(200))") }
    return (thousands * 1000, String(line))
}

/// Runs a command and returns its standard output. Spawned with an empty signal mask and default
/// handlers: `Foundation.Process` passes on the calling thread's mask, in which Dispatch blocks SIGALRM,
/// and `openssl speed -seconds` stops its loop with `alarm()`, so it would never end.
private func runWithSignalsUnblocked(_ arguments: [String]) throws -> String {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var mask = sigset_t()
    sigemptyset(&mask)
    posix_spawnattr_setsigmask(&attributes, &mask)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    sigaddset(&defaults, SIGALRM)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var descriptors: [Int32] = [0, 0]
    guard pipe(&descriptors) == 0 else { throw BenchmarkError("pipe failed") }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, descriptors[1], 1)
    posix_spawn_file_actions_addclose(&actions, descriptors[0])
    posix_spawn_file_actions_addclose(&actions, descriptors[1])
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let status = posix_spawnp(&pid, arguments[0], &actions, &attributes, &argv, environ)
    close(descriptors[1])
    defer { close(descriptors[0]) }
    guard status == 0 else { throw BenchmarkError("cannot run \(arguments[0]): \(String(cString: strerror(status)))") }
    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(descriptors[0], &buffer, buffer.count)
        if count <= 0 { break }
        output += buffer[0..<count]
    }
    var exit: Int32 = 0
    waitpid(pid, &exit, 0)
    return String(decoding: output, as: UTF8.self)
}
