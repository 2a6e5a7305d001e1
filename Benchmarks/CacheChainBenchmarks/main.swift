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

let iterations = Int(ProcessInfo.processInfo.environment["BENCH_ITERATIONS"] ?? "") ?? 200_000
print("CacheChain benchmarks — \(iterations) iterations per scenario, release build, \(ProcessInfo.processInfo.activeProcessorCount) cores")

try await runMemoryScenarios(iterations: iterations)
// Scenario 6: network miss through libcurl vs a plain libcurl loop; hit vs miss.
try await runNetworkScenarios(iterations: min(iterations, 2_000))
