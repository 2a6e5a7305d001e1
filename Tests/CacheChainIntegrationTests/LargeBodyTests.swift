import CacheChain
import CacheChainLoopback
import Foundation
import HTTPTypes
import Testing

/// Large bodies, through each transport (``TransportKind``): spooled to a file as they arrive, so the
/// transport's memory is bounded by `inMemoryBodyLimit` whatever the size, and never left behind on failure.
@Suite("Large bodies through each transport", .tags(.integration))
struct LargeBodyTests {
    static let fiftyMiB = 50 << 20

    /// A fresh, empty spool directory for one test.
    static func makeSpoolDirectory() -> String {
        NSTemporaryDirectory() + "cachechain-spool-test-\(UUID().uuidString)"
    }

    /// The spool files in `directory`: those with a name, and those this process holds open without one
    /// (how `BodyFileWriter` creates them: `<directory>/#… (deleted)`).
    static func spoolFiles(in directory: String) -> [String] {
        let named = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        let unnamed = descriptors.compactMap { name in
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)")
        }.filter { $0.hasPrefix(directory + "/") && $0.hasSuffix(" (deleted)") }
        return named + unnamed
    }

    /// Whether `body` is exactly the loopback origin's generated pattern of `count` bytes.
    static func matchesPattern(_ body: PipelineBody, count: Int) throws -> Bool {
        guard body.count == count else { return false }
        var position = 0
        var matches = true
        try body.forEachChunk { chunk in
            matches = matches && LoopbackRoute.Body.isGeneratedPattern(chunk, at: position)
            position += chunk.count
        }
        return matches && position == count
    }

    @Test("a 50 MiB body is spooled to a file as it arrives, reads back byte for byte, and its file goes with it", arguments: TransportKind.allCases)
    func fiftyMiBIsSpooled(_ kind: TransportKind) async throws {
        let origin = try await LoopbackOrigin.start()
        origin.route("/big", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: .generated(count: Self.fiftyMiB)))
        let spool = Self.makeSpoolDirectory()
        defer { try? FileManager.default.removeItem(atPath: spool) }
        // A memory cache too small for the body: it must neither store it nor be emptied by it.
        let storage = MemoryStorage(capacity: 16 << 20)
        let transport = try kind.makeTransport(inMemoryBodyLimit: 1 << 20, spoolDirectory: spool)
        let client = HTTPCacheClient(transport: transport, configuration: .init(storage: storage))
        let request = try HTTPRequest(url: origin.url("/big"))

        do {
            let response = try await client.data(for: request)
            #expect(response.head.status == .ok)
            #expect(response.body.file != nil, "a body above inMemoryBodyLimit must be file-backed")
            #expect(response.body.inMemoryBytes == nil)
            #expect(try Self.matchesPattern(response.body, count: Self.fiftyMiB))
            #expect(Self.spoolFiles(in: spool).count == 1)
        }
        // The response is released: its spool file is gone.
        #expect(Self.spoolFiles(in: spool).isEmpty)
        #expect(await storage.usage().entryCount == 0)
        try await client.shutdown()
        try await origin.shutdown()
    }

    @Test("a spooled body a memory cache has room for is stored in memory and served as a HIT", arguments: TransportKind.allCases)
    func spooledBodyIsCached(_ kind: TransportKind) async throws {
        let origin = try await LoopbackOrigin.start()
        let size = 6 << 20
        origin.route("/six", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: .generated(count: size)))
        let spool = Self.makeSpoolDirectory()
        defer { try? FileManager.default.removeItem(atPath: spool) }
        let storage = MemoryStorage(capacity: 32 << 20)
        let transport = try kind.makeTransport(inMemoryBodyLimit: 1 << 20, spoolDirectory: spool)
        // Lift Apple's 5% size rule so a 6 MiB body fits a 32 MiB cache.
        let client = HTTPCacheClient(transport: transport, configuration: .init(storage: storage, maximumEntryFraction: 0.5))
        let request = try HTTPRequest(url: origin.url("/six"))

        let miss = try await client.data(for: request)
        #expect(miss.cacheStatus == .miss)
        #expect(miss.body.file != nil)
        let hit = try await client.data(for: request)
        #expect(hit.cacheStatus == .hit)
        #expect(hit.body.inMemoryBytes != nil, "the memory tier keeps bodies in memory, not open files")
        #expect(try Self.matchesPattern(hit.body, count: size))
        #expect(origin.requestCount(for: "/six") == 1)
        try await client.shutdown()
        try await origin.shutdown()
    }

    @Test("cancelling a large download mid-body leaves no spool file and no entry", arguments: TransportKind.allCases)
    func cancelMidBody(_ kind: TransportKind) async throws {
        let origin = try await LoopbackOrigin.start()
        origin.route("/huge", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: .generated(count: 4 << 30)))
        let spool = Self.makeSpoolDirectory()
        defer { try? FileManager.default.removeItem(atPath: spool) }
        let storage = MemoryStorage(capacity: 16 << 20)
        let transport = try kind.makeTransport(inMemoryBodyLimit: 1 << 20, spoolDirectory: spool)
        let client = HTTPCacheClient(transport: transport, configuration: .init(storage: storage, timeout: .seconds(120)))
        let request = try HTTPRequest(url: origin.url("/huge"))
        let task = Task { try await client.data(for: request) }

        // Wait until the body is being spooled, i.e. the transfer is mid-body.
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        while Self.spoolFiles(in: spool).isEmpty, ContinuousClock.now < deadline { await Task.yield() }
        #expect(Self.spoolFiles(in: spool).count == 1)
        task.cancel()
        let result = await task.result
        if case .failure(let error as CacheChainError) = result {
            #expect(error.code == .cancelled)
        } else {
            Issue.record("expected a cancellation error, got \(result)")
        }
        #expect(Self.spoolFiles(in: spool).isEmpty, "the partial spool file must be deleted")
        #expect(await storage.usage().entryCount == 0)
        try await client.shutdown()
        try await origin.shutdown()
    }

    @Test("a spool directory that cannot be created fails the request with a clear error", arguments: TransportKind.allCases)
    func unwritableSpool(_ kind: TransportKind) async throws {
        let origin = try await LoopbackOrigin.start()
        origin.route("/two", LoopbackRoute(body: .generated(count: 2 << 20)))
        let blocker = NSTemporaryDirectory() + "cachechain-not-a-dir-\(UUID().uuidString)"
        try Data("file".utf8).write(to: URL(fileURLWithPath: blocker))
        defer { try? FileManager.default.removeItem(atPath: blocker) }
        let transport = try kind.makeTransport(inMemoryBodyLimit: 1 << 20, spoolDirectory: blocker + "/spool")
        let client = HTTPCacheClient(transport: transport)
        let error = await #expect(throws: CacheChainError.self) { try await client.data(for: HTTPRequest(url: origin.url("/two"))) }
        #expect(error?.code == .transportFailed)
        #expect(error?.message.contains("spool") == true, "\(error?.message ?? "")")
        try await client.shutdown()
        try await origin.shutdown()
    }
}
