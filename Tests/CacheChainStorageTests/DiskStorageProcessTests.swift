import CacheChainCore
@testable import CacheChainDiskStorage
@testable import CacheChainStorage
import CacheChainTesting
import Foundation
import Testing

@Suite("DiskStorage across processes", .tags(.integration), .serialized)
struct DiskStorageProcessTests {
    @Test("SIGKILL at random moments, 50 times: every entry that reads back is exact, and the cache opens and works")
    func crashConsistency() async throws {
        let directory = TemporaryDirectory("crash")
        var random = SystemRandomNumberGenerator()
        for round in 0..<50 {
            var writer = try Probe(["write-loop", directory.path, "\(round)"])
            let target = Int.random(in: 1...15, using: &random)
            var stored = 0
            while stored < target, let line = await writer.nextLine() {
                try #require(line.hasPrefix("stored"), "writer failed: \(line)")
                stored += 1
            }
            await writer.kill()
            try #require(stored == target, "the writer stopped early in round \(round)")
        }
        let (lines, status) = try await Probe.run(["verify", directory.path])
        #expect(status == 0, "\(lines)")
        #expect(lines.last?.hasPrefix("verified") == true, "\(lines)")

        let storage = try DiskStorage(configuration: .init(directory: directory.path, orphanGracePeriod: .zero))
        let report = try await storage.checkIntegrity()
        #expect(report.isSound, "\(report)")
        let entry = StorageConformanceSuite.makeEntry(path: "/after-crashes", body: "works")
        try await storage.store(entry)
        #expect(try await storage.entries(for: entry.key).first?.cached.body == "works")
        // Nothing the killed writers left behind survives a sweep: every remaining file is referenced.
        await storage.sweepOrphans()
        let referenced = Set(try storage.index.referencedFiles())
        let onDisk = try FileManager.default.subpathsOfDirectory(atPath: directory.path + "/v\(DiskStorage.formatVersion)")
            .filter { $0.contains(".") && !$0.hasPrefix("index.sqlite") && !$0.hasPrefix("tmp") }
            .map { ($0 as NSString).lastPathComponent }
        #expect(Set(onDisk) == referenced)
    }

    @Test("two processes hammer one directory: zero corrupt reads, index consistent (CACHECHAIN_HAMMER_SECONDS, 10 by default)")
    func twoProcesses() async throws {
        let directory = TemporaryDirectory("hammer")
        let seconds = ProcessInfo.processInfo.environment["CACHECHAIN_HAMMER_SECONDS"] ?? "10"
        var first = try Probe(["hammer", directory.path, seconds, "1"])
        var second = try Probe(["hammer", directory.path, seconds, "2"])
        let one = await first.finish(), two = await second.finish()
        #expect(one.status == 0, "\(one.lines.suffix(5))")
        #expect(two.status == 0, "\(two.lines.suffix(5))")
        for result in [one, two] {
            let summary = try #require(result.lines.last { $0.hasPrefix("hammer") })
            #expect(summary.contains("corrupt=0") && summary.contains("errors=0"), "\(summary)")
            #expect(!summary.contains("hits=0 "), "no reads hit: the test proved nothing (\(summary))")
        }
        let storage = try DiskStorage(directory: directory.path)
        let report = try await storage.checkIntegrity()
        #expect(report.isSound, "\(report)")
        #expect(report.checkedEntries == (await storage.usage().entryCount))
    }

    @Test(
        "a large body is stored and served with bounded memory (peak RSS measured in the child)",
        .disabled(if: ThreadSanitizer.isLinked, "under --sanitize=thread the child's RSS includes the sanitizer's shadow memory")
    )
    func largeBody() async throws {
        let directory = TemporaryDirectory("big")
        let size = Int(ProcessInfo.processInfo.environment["CACHECHAIN_BIG_BODY_BYTES"] ?? "") ?? 64 << 20
        let (lines, status) = try await Probe.run(["big", directory.path, "\(size)"])
        #expect(status == 0, "\(lines)")
        let summary = try #require(lines.last { $0.hasPrefix("big") })
        let peak = try #require(summary.split(separator: " ").first { $0.hasPrefix("vmhwm_kib=") }.flatMap { Int($0.dropFirst(10)) })
        #expect(peak * 1024 < size * 3 / 4, "peak RSS \(peak) KiB for a \(size >> 20) MiB body: it was loaded whole")
    }

    @Test("a write that fails (file size limit, as on a full disk) is a typed error; the earlier entry survives")
    func failedWrite() async throws {
        let directory = TemporaryDirectory("fsize")
        let (lines, status) = try await Probe.run(["file-size-limit", directory.path])
        #expect(status == 0, "\(lines)")
        #expect(lines == ["store failed: storage-failed", "ok"])
    }

    @Test("a cache directory the process may not write is a typed error, never a crash")
    func unwritableDirectory() async throws {
        let directory = TemporaryDirectory("readonly")
        let cache = directory.path + "/cache"
        _ = try DiskStorage(directory: cache)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: cache)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: cache) }
        let (lines, status) = try await Probe.run(["unprivileged", cache])
        #expect(status == 0, "\(lines)")
        #expect(lines == ["open failed: storage-failed"] || lines == ["store failed: storage-failed"], "\(lines)")
    }
}

/// Whether this test binary was built with `--sanitize=thread`: the sanitizer's runtime defines `__tsan_init`.
private enum ThreadSanitizer {
    static let isLinked = dlsym(dlopen(nil, RTLD_NOW), "__tsan_init") != nil
}
