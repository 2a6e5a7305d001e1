import CacheChain
import CacheChainRedis
import CacheChainTesting
import Foundation

/// Redis backend: hit latency and throughput for 1 KiB and 1 MiB bodies through the full chain, next to
/// the memory backend and to `redis-benchmark` GETs of the same size on the same server, in one run.
/// Skipped (with a message) when `redis-server` is not installed.
func runRedisScenarios(iterations: Int) async throws {
    let server: LocalRedisServer
    do { server = try await LocalRedisServer.start() } catch {
        print("\n(skipping Redis scenarios: \(error))")
        return
    }
    defer { server.stop() }
    for (label, size) in [("1 KiB", 1024), ("1 MiB", 1 << 20)] {
        let count = size > 4096 ? max(200, iterations / 50) : iterations
        let body = PipelineBody([UInt8](repeating: 42, count: size))
        let redis = RedisStorage(configuration: .init(endpoint: .tcp(host: "127.0.0.1", port: server.port), namespace: "bench"))
        let memory = MemoryStorage(capacity: 64 << 20)
        let entry = freshEntry(path: "/redis-\(size)", body: body)
        try await redis.store(entry)
        await memory.store(entry)
        let request = try HTTPRequest(url: "http://origin.test/redis-\(size)")
        let redisClient = HTTPCacheClient(transport: ScriptedTransport(), configuration: .init(storage: redis))
        let memoryClient = HTTPCacheClient(transport: ScriptedTransport(), configuration: .init(storage: memory))
        let redisHit = try await measure("Redis hit, full chain, \(label)", iterations: count, warmUp: 50) {
            let response = try await redisClient.data(for: request)
            precondition(response.cacheStatus == .hit && response.body.count == size)
        }
        let memoryHit = try await measure("memory hit, full chain, \(label)", iterations: count, warmUp: 50) {
            let response = try await memoryClient.data(for: request)
            precondition(response.cacheStatus == .hit)
        }
        let raw = try redisBenchmarkGet(port: server.port, size: size, requests: count)
        printSection("Redis hit, \(label) body (same redis-server)")
        printComparison(redisHit, raw)
        printComparison(redisHit, memoryHit)
    }
}

/// `redis-benchmark -t set,get -d SIZE -c 1` against the same server; the GET row's p50 and rate as a
/// Measurement (its p99 stands in for our p99 column).
private func redisBenchmarkGet(port: Int, size: Int, requests: Int) throws -> Measurement {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-benchmark")
    process.arguments = ["-p", String(port), "-t", "set,get", "-d", String(size), "-n", String(requests), "-c", "1", "--csv"]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    // "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
    guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("\"GET\"") }) else {
        throw BenchmarkError("redis-benchmark printed no GET row: \(output.prefix(200))")
    }
    let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
    guard fields.count >= 7, let rps = Double(fields[1]), let p50 = Double(fields[4]), let p99 = Double(fields[6]) else {
        throw BenchmarkError("unexpected redis-benchmark output: \(line)")
    }
    // Synthesize samples with the reported p50/p99 so the table prints them; throughput from its rate.
    var samples = [Double](repeating: p50 * 1e6, count: 98)
    samples += [p99 * 1e6, p99 * 1e6]
    return Measurement(name: "redis-benchmark GET -c 1 (\(Int(rps)) rps)", samples: samples)
}
