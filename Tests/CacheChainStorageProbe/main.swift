// A child process for DiskStorage's crash, multi-process, large-body and error tests.
//
//   cachechain-storage-probe write-loop <dir> <seed>        store entries forever, one "stored" line each
//   cachechain-storage-probe verify <dir>                    every entry that reads back must be exact
//   cachechain-storage-probe hammer <dir> <seconds> <seed>   mixed operations; reports corrupt reads
//   cachechain-storage-probe big <dir> <bytes>               store and serve one large body; peak RSS
//   cachechain-storage-probe file-size-limit <dir>           writes hit RLIMIT_FSIZE (a stand-in for ENOSPC)
//   cachechain-storage-probe unprivileged <dir>              opens a cache it may not write, as nobody
//   cachechain-storage-probe variant-flood <dir> <count>     stores <count> Vary variants of one URL
//   cachechain-storage-probe hold-lock <dir>                 holds the index's write lock until killed
//
// Bodies derive from (key number, generation, size) so any process can tell the exact expected bytes.
#if canImport(Glibc)
import Glibc
#endif
import CSQLite
import CacheChainCore
import CacheChainDiskStorage
import CacheChainStorage
import Foundation
import HTTPTypes

let keyCount = 200

func emit(_ line: String) {
    let text = line + "\n"
    _ = text.utf8CString.withUnsafeBufferPointer { write(1, $0.baseAddress, $0.count - 1) }
}

func fail(_ line: String) -> Never {
    emit("FAIL " + line)
    exit(1)
}

/// Deterministic bytes for a key number and generation: byte i is byte i % 8 of splitmix64(seed + i / 8),
/// so any range can be produced without the bytes before it.
func pattern(key: Int, generation: UInt32, size: Int, from offset: Int = 0, count: Int? = nil) -> [UInt8] {
    let seed = UInt64(key + 1) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(generation)
    let count = count ?? size - offset
    return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
        var block = UInt64.max
        var word: UInt64 = 0
        for index in 0..<count {
            let position = offset + index
            if UInt64(position >> 3) != block {
                block = UInt64(position >> 3)
                var z = seed &+ block &* 0x9E37_79B9_7F4A_7C15
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                word = z ^ (z >> 31)
            }
            buffer[index] = UInt8(truncatingIfNeeded: word >> UInt64((position & 7) * 8))
        }
        initialized = count
    }
}

func size(for key: Int, random: inout some RandomNumberGenerator) -> Int {
    switch key % 3 {
    case 0: Int.random(in: 0...4000, using: &random)          // inline in the index
    case 1: Int.random(in: 20_000...200_000, using: &random)  // entry file, returned in memory
    default: Int.random(in: 300_000...1_500_000, using: &random)
    }
}

func entry(key: Int, generation: UInt32, size: Int) -> CacheEntry {
    let request = HTTPRequest(method: .get, scheme: "https", authority: "probe.test", path: "/k/\(key)")
    var response = HTTPResponse(status: .ok)
    response.headerFields[HTTPField.Name("x-generation")!] = "\(generation)"  // invariant: a valid literal field name
    response.headerFields[.cacheControl] = "max-age=600"
    let body = PipelineBody(pattern(key: key, generation: generation, size: size))
    return CacheEntry(request: request, cached: CachedResponse(response: response, body: body, requestTime: Date()))
}

func key(_ number: Int) -> CacheKey {
    CacheKey(method: "GET", scheme: "https", authority: "probe.test", path: "/k/\(number)")
}

/// Checks a read-back entry against the bytes its generation implies; returns false when they differ.
func isExact(_ found: CacheEntry, key number: Int) -> Bool {
    guard let text = found.cached.response.headerFields[HTTPField.Name("x-generation")!],  // invariant: valid literal
          let generation = UInt32(text), found.key == key(number)
    else { return false }
    let body = found.cached.body
    var offset = 0
    var exact = true
    do {
        try body.forEachChunk { chunk in
            let expected = pattern(key: number, generation: generation, size: body.count, from: offset, count: chunk.count)
            if !expected.elementsEqual(chunk) { exact = false }
            offset += chunk.count
        }
    } catch {
        return false
    }
    return exact && offset == body.count
}

/// Opens the probe's cache. `grace` is zero by default (a killed writer's leftovers are swept at once); processes
/// that write at the same time need a real grace period, or one sweeps the other's file still being written.
func open(_ directory: String, capacity: Int = 64 << 20, grace: Duration = .zero) -> DiskStorage {
    do {
        return try DiskStorage(configuration: .init(directory: directory, capacity: capacity, orphanGracePeriod: grace))
    } catch {
        fail("open: \(error)")
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { fail("usage: cachechain-storage-probe MODE DIRECTORY …") }
let directory = arguments[2]

switch arguments[1] {
case "write-loop":
    var random = SystemRandomNumberGenerator()
    let storage = open(directory)
    while true {
        let number = Int.random(in: 0..<keyCount, using: &random)
        let generation = UInt32.random(in: 0...UInt32.max, using: &random)
        do {
            if Int.random(in: 0..<10, using: &random) == 0 {
                try await storage.remove(key(number))
            } else {
                try await storage.store(entry(key: number, generation: generation, size: size(for: number, random: &random)))
            }
        } catch {
            fail("store: \(error)")
        }
        emit("stored \(number)")
    }

case "verify":
    let storage = open(directory)
    var exact = 0, misses = 0, damaged = 0
    for number in 0..<keyCount {
        do {
            let found = try await storage.entries(for: key(number))
            if found.isEmpty { misses += 1 }
            for item in found {
                if isExact(item, key: number) { exact += 1 } else { fail("entry \(number) read back different bytes") }
            }
        } catch {
            damaged += 1  // a damaged entry is a miss with a reason, and is removed
        }
    }
    let report: DiskStorage.IntegrityReport
    do { report = try await storage.checkIntegrity() } catch { fail("integrity: \(error)") }
    guard report.isSound else { fail("index: \(report)") }
    emit("verified exact=\(exact) misses=\(misses) damaged=\(damaged)")

case "hammer":
    guard arguments.count >= 5, let seconds = Double(arguments[3]) else { fail("hammer DIR SECONDS SEED") }
    var random = SystemRandomNumberGenerator()
    let storage = open(directory, capacity: 24 << 20, grace: .seconds(600))
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    var operations = 0, hits = 0, corrupt = 0, errors = 0
    while ContinuousClock.now < deadline {
        operations += 1
        let number = Int.random(in: 0..<keyCount, using: &random)
        do {
            switch Int.random(in: 0..<20, using: &random) {
            case 0..<10:
                for item in try await storage.entries(for: key(number)) {
                    hits += 1
                    if !isExact(item, key: number) { corrupt += 1 }
                }
            case 10..<18:
                let generation = UInt32.random(in: 0...UInt32.max, using: &random)
                try await storage.store(entry(key: number, generation: generation, size: size(for: number, random: &random) / 4))
            default:
                try await storage.remove(key(number))
            }
        } catch where error.code == .integrityCheckFailed {
            corrupt += 1
            emit("integrity failure: \(error)")
        } catch {
            errors += 1
            emit("error: \(error)")
        }
    }
    emit("hammer operations=\(operations) hits=\(hits) corrupt=\(corrupt) errors=\(errors)")
    exit(corrupt == 0 && errors == 0 ? 0 : 1)

case "big":
    guard arguments.count >= 4, let total = Int(arguments[3]) else { fail("big DIR BYTES") }
    let storage = open(directory + "/cache", capacity: total + (64 << 20))
    let started = ContinuousClock.now
    do {
        let writer = try BodyFileWriter(directory: directory + "/spool")
        var offset = 0
        while offset < total {
            let count = min(1 << 20, total - offset)
            try writer.append(pattern(key: 7, generation: 1, size: total, from: offset, count: count))
            offset += count
        }
        let request = HTTPRequest(method: .get, scheme: "https", authority: "probe.test", path: "/k/7")
        var response = HTTPResponse(status: .ok)
        response.headerFields[HTTPField.Name("x-generation")!] = "1"  // invariant: a valid literal field name
        try await storage.store(CacheEntry(request: request, cached: CachedResponse(response: response, body: try writer.finish(), requestTime: Date())))
    } catch {
        fail("store: \(error)")
    }
    let stored = ContinuousClock.now
    do {
        let found = try await storage.entries(for: key(7))
        guard let item = found.first, item.cached.body.file != nil, item.cached.body.count == total else {
            fail("the large body is not served as a file region")
        }
        guard isExact(item, key: 7) else { fail("the large body read back different bytes") }
    } catch {
        fail("lookup: \(error)")
    }
    let served = ContinuousClock.now
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }.map { $0.split(separator: " ").dropFirst().first.map(String.init) ?? "?" } ?? "?"
    emit("big bytes=\(total) vmhwm_kib=\(peak) store=\(stored - started) serve=\(served - stored)")

case "file-size-limit":
    // RLIMIT_FSIZE makes writes past 1 MiB fail with EFBIG, as ENOSPC would on a full disk.
    signal(SIGXFSZ, SIG_IGN)
    let storage = open(directory)
    let small = entry(key: 0, generation: 1, size: 1000)
    do { try await storage.store(small) } catch { fail("small store: \(error)") }
    var limit = rlimit(rlim_cur: 1 << 20, rlim_max: rlim_t.max)
    setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit)
    do {
        try await storage.store(entry(key: 1, generation: 1, size: 4 << 20))
        fail("a store past the file size limit succeeded")
    } catch {
        emit("store failed: \(error.code)")
    }
    guard let back = try? await storage.entries(for: key(0)).first, isExact(back, key: 0) else { fail("the earlier entry was lost") }
    guard (try? await storage.entries(for: key(1)))?.isEmpty == true else { fail("the failed entry is visible") }
    emit("ok")

case "unprivileged":
    if getuid() == 0 {
        guard setgid(65534) == 0, setuid(65534) == 0 else { fail("cannot drop privileges") }
    }
    do {
        let storage = try DiskStorage(directory: directory)
        do {
            try await storage.store(entry(key: 0, generation: 1, size: 100))
            emit("store succeeded")
        } catch {
            emit("store failed: \(error.code)")
        }
    } catch {
        emit("open failed: \(error.code)")
    }

case "variant-flood":
    // One URL whose response varies on a field each client sets differently (issue 25.7).
    guard arguments.count >= 4, let count = Int(arguments[3]) else { fail("variant-flood DIR COUNT") }
    let storage = open(directory)
    var response = HTTPResponse(status: .ok)
    response.headerFields[.cacheControl] = "max-age=600"
    response.headerFields[.vary] = "Accept-Language"
    let flooded = HTTPRequest(method: .get, scheme: "https", authority: "probe.test", path: "/negotiated")
    for index in 0..<count {
        var request = flooded
        request.headerFields[.acceptLanguage] = "l\(index)"
        let entry = CacheEntry(request: request, cached: CachedResponse(response: response, body: PipelineBody([1, 2, 3]), requestTime: Date()))
        do { try await storage.store(entry) } catch { fail("store \(index + 1) of \(count): \(error)") }
    }
    guard let kept = try? await storage.entries(for: CacheKey(flooded)) else { fail("the lookup failed") }
    emit("stored \(count) kept \(kept.count) " + kept.map(\.variantKey).sorted().joined(separator: " "))

case "hold-lock":
    // Another process holding SQLite's write lock on the cache's index: DiskStorage's writes wait on their
    // busy timeout until this process is killed.
    _ = open(directory)  // creates the directory and its index
    var database: OpaquePointer?
    guard sqlite3_open_v2("\(directory)/v\(DiskStorage.formatVersion)/index.sqlite", &database, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK,
        sqlite3_exec(database, "BEGIN EXCLUSIVE", nil, nil, nil) == SQLITE_OK
    else { fail("could not take the lock") }
    emit("locked")
    while true { pause() }

default:
    fail("unknown mode \(arguments[1])")
}
