import CacheChain
import CacheChainTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

// Release-mode benchmark: each CacheChain figure is printed next to a baseline measured in the same run.
// Run with ./scripts/bench.sh. A plain executable (not package-benchmark) so baselines such as
// Foundation's URLCache run in the same process and the output is one readable table.

// In a previous build's worker (`scripts/bench.sh --against COMMIT`), keep stdout for the coordinator first.
PreviousBuild.prepare()

let iterations = Int(ProcessInfo.processInfo.environment["BENCH_ITERATIONS"] ?? "") ?? 200_000
let arguments = Set(CommandLine.arguments.dropFirst())
let quick = arguments.contains("--quick")
print("CacheChain benchmarks — release build, \(ProcessInfo.processInfo.activeProcessorCount) cores\(quick ? ", --quick" : "")")

// BENCH_SCENARIOS=memory,network runs those scenarios. Without it, the paired run (`paired`: every row
// alternates subject and baseline rounds and prints the median ratio and its spread, then a summary table);
// `--all` adds the detailed scenarios below to it (\(iterations) iterations per scenario, BENCH_ITERATIONS).
let selected = Set((ProcessInfo.processInfo.environment["BENCH_SCENARIOS"] ?? "").split(separator: ",").map(String.init))
func isSelected(_ name: String) -> Bool {
    if selected.isEmpty { return name == "paired" || arguments.contains("--all") }
    return selected.contains(name)
}

// BENCH_PROFILE=memory-hit (or urlcache-hit, curl-send, libcurl-loop) runs one side of a paired row alone, for
// a profiler, and nothing else (ProfileRuns.swift).
if let profile = ProcessInfo.processInfo.environment["BENCH_PROFILE"] {
    let calls = Int(ProcessInfo.processInfo.environment["BENCH_PROFILE_CALLS"] ?? "") ?? 20_000
    try await runProfile(profile, calls: calls)
    exit(0)
}

if isSelected("paired") {
    let plan: PairedPlan = quick ? .quick : .full
    let started = ContinuousClock.now
    // BENCH_PAIRED=disk (or network, streaming, memory, a comma-separated list) runs only those groups of rows.
    let groups = Set((ProcessInfo.processInfo.environment["BENCH_PAIRED"] ?? "network,streaming,memory,disk,urlsession").split(separator: ",").map(String.init))
    if groups.contains("network") { try await runPairedNetworkRows(plan: plan) }
    if groups.contains("streaming") { try await runPairedStreamingRows(plan: plan) }
    if groups.contains("memory") { try await runPairedMemoryRows(plan: plan) }
    if groups.contains("disk") { try await runPairedDiskRows(plan: plan) }
    if groups.contains("urlsession") { try await runPairedURLSessionRows(plan: plan) }
    // `loops` (loopCount 2 vs 1) is not in the default run; BENCH_PAIRED=loops runs it.
    if groups.contains("loops") { try await runPairedLoopCountRows(plan: plan) }
    printPairedSummary()
    print("(paired run: \(plan.pairs) pairs per row, \(ContinuousClock.now - started))")
}
// A previous build's worker serves the paired rows only.
if PreviousBuild.isWorker { exit(0) }

// Scenario 8: peak RSS filling a 256 MiB memory cache and downloading a 1 GiB body.
if isSelected("footprint") { try await runMemoryFootprintScenarios() }
if isSelected("memory") { try await runMemoryScenarios(iterations: iterations) }
// Scenario 6: network miss through libcurl vs a plain libcurl loop; hit vs miss.
if isSelected("network") { try await runNetworkScenarios(iterations: min(iterations, 2_000)) }
// Scenario 7: hit throughput with 1, 2, 8 and 64 tasks.
if isSelected("concurrency") { try await runConcurrencyScenarios(iterations: iterations) }
// Scenario 4 (memory tier): lookup latency with 1k, 100k and 1M entries.
if isSelected("scale") { try await runScaleScenarios(iterations: min(iterations, 50_000)) }

// URLSession with CacheChain (issue #30): hit vs HTTPCacheClient's hit and vs plain FoundationNetworking.
if isSelected("urlsession") { try await runURLSessionScenarios(iterations: min(iterations, 20_000)) }

// Disk backend (issue #4): hit and store vs plain file reads and URLCache's disk cache; 1k/100k/1M entries.
if isSelected("disk") { try await runDiskScenarios(iterations: iterations) }

// Redis backend (issue #9): hit vs memory and vs redis-benchmark on the same server.
if isSelected("redis") { try await runRedisScenarios(iterations: min(iterations, 20_000)) }

// Encryption plugin (issue #5): AES-256-GCM vs openssl speed; encrypted vs plain memory and disk hits.
if isSelected("encryption") { try await runEncryptionScenarios(iterations: iterations) }

let resultsPath = ProcessInfo.processInfo.environment["BENCH_RESULTS"] ?? "Benchmarks/results/latest.json"
try writeResults(to: resultsPath)
print("\nresults written to \(resultsPath)")
