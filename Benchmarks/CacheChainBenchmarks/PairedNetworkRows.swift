import CCurl
import CacheChain
import CacheChainCurl
import CacheChainLoopback
import Foundation

/// The network rows of the paired run (issue 29): misses through the default client — no executor chosen by
/// the caller — and through the transport alone, next to a plain libcurl loop on the same loopback origin; a
/// 304 revalidation next to libcurl's conditional GET; 8 and 64 concurrent misses next to libcurl on 8
/// threads. Every row prints context switches and CPU time per request (`getrusage`, whole process).
func runPairedNetworkRows(plan: PairedPlan) async throws {
    let origin = try await LoopbackOrigin.start()
    defer { Task { try? await origin.shutdown() } }
    origin.route("/small", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: .generated(count: 512)))
    origin.route("/large", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: .generated(count: 1 << 20)))
    origin.route("/revalidate", LoopbackRoute(headers: [("Cache-Control", "no-cache")], body: "validated body", etag: "\"r1\""))

    let transport = CurlTransport()
    defer { Task { await transport.shutdown() } }
    let client = HTTPCacheClient(transport: transport, configuration: .init(storage: MemoryStorage(capacity: 256 << 20)))
    let context = InterceptorContext(storage: MemoryStorage(capacity: 1))

    for (label, path, size, calls) in [("small (512 B)", "/small", 512, 400), ("1 MiB", "/large", 1 << 20, 40)] {
        printSection("Network miss, \(label) body, loopback origin (paired rounds)")
        let url = origin.url(path)
        let request = try HTTPRequest(url: url)
        let plain = try PlainLibcurl(url: url)
        try await comparePaired(
            ("full chain miss (default client)", "plain libcurl loop (1 easy handle)"), plan: plan, calls: calls,
            target: size == 512 ? "≤ 1.25" : nil, resourceUse: true
        ) {
            let response = try await client.data(for: request, cachePolicy: .reloadIgnoringLocalCacheData)
            precondition(response.cacheStatus == .miss && response.body.count == size)
        } _: {
            try plain.perform(expectedSize: size)
        }
        try await comparePaired(
            ("CurlTransport.send alone", "plain libcurl loop (1 easy handle)"), plan: plan, calls: calls, resourceUse: true
        ) {
            let response = try await transport.send(PipelineRequest(head: request), context: context)
            precondition(response.body.count == size)
        } _: {
            try plain.perform(expectedSize: size)
        }
        if let executor = transport.taskExecutor {
            try await comparePaired(
                ("full chain miss, whole loop on libcurl's executor", "plain libcurl loop (1 easy handle)"),
                plan: plan, calls: calls, resourceUse: true
            ) {
                try await withTaskExecutorPreference(executor) {
                    let response = try await client.data(for: request, cachePolicy: .reloadIgnoringLocalCacheData)
                    precondition(response.cacheStatus == .miss && response.body.count == size)
                }
            } _: {
                try plain.perform(expectedSize: size)
            }
        }
    }

    printSection("304 revalidation round trip vs plain libcurl conditional GET (paired rounds)")
    let revalidateURL = origin.url("/revalidate")
    let revalidateRequest = try HTTPRequest(url: revalidateURL)
    _ = try await client.data(for: revalidateRequest)
    let conditional = try PlainLibcurl(url: revalidateURL, headers: ["If-None-Match: \"r1\""])
    try await comparePaired(
        ("full chain 304 revalidation", "plain libcurl conditional GET"), plan: plan, calls: 400, target: "≤ 1.3", resourceUse: true
    ) {
        let response = try await client.data(for: revalidateRequest)
        precondition(response.cacheStatus == .revalidated)
    } _: {
        try conditional.perform(expectedSize: 0, expectedStatus: 304)
    }

    printSection("Concurrent small misses vs libcurl on 8 threads (paired rounds, throughput)")
    let url = origin.url("/small")
    let threads = try LibcurlThreads(url: url, count: 8)
    // Every call asks for a URL of its own (`/small?n=…`, the same route): concurrent requests for one URL would
    // be coalesced into one origin request by the client, and the row would not measure misses.
    let distinct = try (0..<4096).map { try HTTPRequest(url: origin.url("/small?n=\($0)")) }
    for tasks in [8, 64] {
        let before = origin.requestCount(for: "/small")
        try await runConcurrently(tasks: tasks, total: 640) { _ in
            _ = try await client.data(for: try HTTPRequest(url: url), cachePolicy: .reloadIgnoringLocalCacheData)
        }
        let coalesced = origin.requestCount(for: "/small") - before
        print("  (\(tasks) tasks asking for one URL: \(coalesced) origin requests for 640 calls; the row uses distinct URLs)")
        try await compareThroughputPaired(
            ("\(tasks) concurrent misses (default client)", "libcurl, 8 threads"), plan: plan, calls: 2_000,
            target: tasks == 8 ? "≥ 0.8" : nil, resourceUse: true
        ) { total in
            try await runConcurrently(tasks: tasks, total: total) { index in
                let response = try await client.data(for: distinct[index & 4095], cachePolicy: .reloadIgnoringLocalCacheData)
                precondition(response.cacheStatus == .miss && response.body.count == 512)
            }
        } _: { total in
            try await threads.perform(total: total, expectedSize: 512)
        }
    }
}

/// Runs `total` calls of `body` spread over `tasks` child tasks and returns when all have finished.
func runConcurrently(tasks: Int, total: Int, _ body: @escaping @Sendable (Int) async throws -> Void) async throws {
    let perTask = max(1, total / tasks)
    try await withThrowingTaskGroup(of: Void.self) { group in
        for task in 0..<tasks {
            group.addTask {
                for call in 0..<perTask { try await body(task &* perTask &+ call) }
            }
        }
        try await group.waitForAll()
    }
}

/// A plain libcurl loop: one easy handle reused for every request (keep-alive), `curl_easy_perform` on the
/// calling thread.
final class PlainLibcurl: @unchecked Sendable {  // invariant: used by one thread at a time (a benchmark loop or one LibcurlThreads worker)
    private let handle: BaselineEasyHandle
    private var received = 0

    init(url: String, headers: [String] = []) throws {
        handle = try BaselineEasyHandle(url: url, headers: headers)
        handle.onWrite = { [unowned self] piece in
            received += piece.count
            return piece.count
        }
    }

    /// One request; throws unless it succeeds with the expected status and body size.
    func perform(expectedSize: Int, expectedStatus: Int = 200) throws {
        received = 0
        let (code, status) = handle.perform()
        guard code == CURLE_OK, received == expectedSize, status == expectedStatus else {
            throw BenchmarkError("plain libcurl request failed: code \(code.rawValue), status \(status), \(received) bytes")
        }
    }
}

/// Plain libcurl loops on `count` threads of their own, each with its own reused easy handle: what a C
/// program does with 8 concurrent requests.
final class LibcurlThreads: Sendable {
    private let loops: [PlainLibcurl]

    init(url: String, count: Int) throws {
        loops = try (0..<count).map { _ in try PlainLibcurl(url: url) }
    }

    /// Performs `total` requests spread over the threads and returns when all have finished.
    func perform(total: Int, expectedSize: Int) async throws {
        let perThread = max(1, total / loops.count)
        let failures = LockedRows.Failures()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let remaining = LockedRows.Counter(loops.count)
            for loop in loops {
                let thread = Thread {
                    do { for _ in 0..<perThread { try loop.perform(expectedSize: expectedSize) } } catch { failures.record(error) }
                    if remaining.decrement() == 0 { continuation.resume() }
                }
                thread.start()
            }
        }
        if let failure = failures.first { throw failure }
    }
}

extension LockedRows {
    /// A countdown behind a lock.
    final class Counter: @unchecked Sendable {  // invariant: `value` is only touched under `lock`
        private let lock = NSLock()
        private var value: Int
        init(_ value: Int) { self.value = value }
        func decrement() -> Int {
            lock.lock()
            defer { lock.unlock() }
            value -= 1
            return value
        }
    }

    /// The first error of several threads, behind a lock.
    final class Failures: @unchecked Sendable {  // invariant: `errors` is only touched under `lock`
        private let lock = NSLock()
        private var errors: [any Error] = []
        func record(_ error: any Error) {
            lock.lock()
            defer { lock.unlock() }
            errors.append(error)
        }
        var first: (any Error)? {
            lock.lock()
            defer { lock.unlock() }
            return errors.first
        }
    }
}
