import Foundation
import Synchronization

/// Latency samples of one scenario, in nanoseconds, with the statistics the tables print.
struct Measurement {
    var name: String
    var samples: [Double]
    /// Wall time of the whole run when samples were taken concurrently; throughput then uses it.
    var wallNanoseconds: Double?

    var sorted: [Double] { samples.sorted() }

    func percentile(_ p: Double) -> Double {
        let values = sorted
        guard !values.isEmpty else { return 0 }
        let rank = min(values.count - 1, max(0, Int((p / 100 * Double(values.count)).rounded(.up)) - 1))
        return values[rank]
    }

    var opsPerSecond: Double {
        if let wallNanoseconds, wallNanoseconds > 0 { return Double(samples.count) / (wallNanoseconds / 1e9) }
        let total = samples.reduce(0, +)
        return total > 0 ? Double(samples.count) / (total / 1e9) : 0
    }
}


/// Runs `body` `iterations` times after a warm-up and records each call's wall time.
/// Nonisolated: call it from nonisolated code so that taking a sample costs no executor hop.
func measure(_ name: String, iterations: Int, warmUp: Int = 1000, _ body: () async throws -> Void) async rethrows -> Measurement {
    for _ in 0..<warmUp { try await body() }
    var samples: [Double] = []
    samples.reserveCapacity(iterations)
    let clock = ContinuousClock()
    for _ in 0..<iterations {
        let start = clock.now
        try await body()
        let elapsed = clock.now - start
        samples.append(elapsed.nanoseconds)
    }
    return Measurement(name: name, samples: samples)
}

/// Times two operations in alternating blocks of `block` calls each (after `warmUp` calls of each), so that
/// both see the same machine: on a shared VM the speed of the same code drifts by a third between minutes,
/// and measuring one operation after the other turns that drift into their ratio.
/// - Returns: The samples of `first` and of `second`, `iterations` each.
func measureAlternating(
    _ names: (first: String, second: String),
    iterations: Int,
    block: Int = 500,
    warmUp: Int = 200,
    _ first: () async throws -> Void,
    _ second: () async throws -> Void
) async rethrows -> (first: Measurement, second: Measurement) {
    for _ in 0..<warmUp { try await first() }
    for _ in 0..<warmUp { try await second() }
    var firstSamples: [Double] = []
    var secondSamples: [Double] = []
    firstSamples.reserveCapacity(iterations)
    secondSamples.reserveCapacity(iterations)
    let clock = ContinuousClock()
    while firstSamples.count < iterations {
        let count = min(block, iterations - firstSamples.count)
        for _ in 0..<count {
            let start = clock.now
            try await first()
            firstSamples.append((clock.now - start).nanoseconds)
        }
        for _ in 0..<count {
            let start = clock.now
            try await second()
            secondSamples.append((clock.now - start).nanoseconds)
        }
    }
    return (Measurement(name: names.first, samples: firstSamples), Measurement(name: names.second, samples: secondSamples))
}

/// Prints one row: scenario, CacheChain figure, baseline figure and the ratio.
func printComparison(_ ours: Measurement, _ baseline: Measurement) {
    let ratio = baseline.percentile(50) > 0 ? ours.percentile(50) / baseline.percentile(50) : 0
    let section = currentSection.withLock { $0 }
    recordedRows.withLock { $0.append(ResultRow(section: section, ours: ours.figures, baseline: baseline.figures, ratio: ratio)) }
    print(
        String(
            format: "%-44@ p50 %9.2f µs  p99 %9.2f µs  %11.0f ops/s | %-34@ p50 %9.2f µs  p99 %9.2f µs | ratio %6.2f×",
            ours.name as NSString, ours.percentile(50) / 1000, ours.percentile(99) / 1000, ours.opsPerSecond,
            baseline.name as NSString, baseline.percentile(50) / 1000, baseline.percentile(99) / 1000, ratio
        )
    )
}

extension Duration {
    /// The duration in nanoseconds, the unit of every sample.
    var nanoseconds: Double {
        Double(components.attoseconds) / 1e9 + Double(components.seconds) * 1e9
    }
}
