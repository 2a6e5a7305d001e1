import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// How long the paired rows run: `--quick` (a smoke run of a minute or two) or the full run.
struct PairedPlan: Sendable {
    /// Pairs of rounds per row (subject, baseline, subject, baseline, …): never fewer than 5.
    var pairs: Int
    /// Multiplies every row's calls per round.
    var scale: Double

    static let full = PairedPlan(pairs: 7, scale: 1)
    static let quick = PairedPlan(pairs: 5, scale: 0.1)

    /// Calls per round for a row whose full run takes `full` calls per round (at least 5).
    func calls(_ full: Int) -> Int { max(5, Int(Double(full) * scale)) }
}

/// What the process used during some calls, from `getrusage(RUSAGE_SELF)`: context switches (voluntary and
/// involuntary) and CPU time (user and system). The whole process counts, so the loopback origin's threads
/// are in both sides of a network row alike.
struct ResourceUse: Sendable {
    var contextSwitches: Int = 0
    var cpuMicroseconds: Double = 0
    var calls: Int = 0

    /// The process's figures now.
    static func now() -> ResourceUse {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
        return ResourceUse(contextSwitches: usage.ru_nvcsw + usage.ru_nivcsw, cpuMicroseconds: cpu, calls: 0)
    }

    /// Adds another measurement's figures.
    mutating func add(_ other: ResourceUse) {
        contextSwitches += other.contextSwitches
        cpuMicroseconds += other.cpuMicroseconds
        calls += other.calls
    }

    /// Adds what was used between `start` and now over `calls` calls.
    mutating func add(since start: ResourceUse, calls: Int) {
        let end = ResourceUse.now()
        contextSwitches += end.contextSwitches - start.contextSwitches
        cpuMicroseconds += end.cpuMicroseconds - start.cpuMicroseconds
        self.calls += calls
    }

    var switchesPerCall: Double { calls > 0 ? Double(contextSwitches) / Double(calls) : 0 }
    var cpuMicrosecondsPerCall: Double { calls > 0 ? cpuMicroseconds / Double(calls) : 0 }
}

/// One side of a paired row: the median call time (latency rows) or calls per second (throughput rows) of each
/// of its rounds, and what the process used during them.
struct PairedSide: Sendable {
    var name: String
    var roundFigures: [Double] = []
    var use = ResourceUse()
}

/// A row measured in alternating rounds: its per-pair ratios, their median and spread.
struct PairedRow: Sendable {
    enum Kind: String, Sendable {
        /// Figures are median call times in ns; the ratio is subject / baseline (lower is better).
        case latency
        /// Figures are calls per second; the ratio is subject / baseline (higher is better).
        case throughput
    }

    var section: String
    var kind: Kind
    var subject: PairedSide
    var baseline: PairedSide
    /// The previous build's subject, measured in the same pairs (`scripts/bench.sh --against COMMIT`), or nil.
    var previous: PairedSide?
    /// The target on the ratio, as the issue states it (e.g. "≤ 1.25"), or nil.
    var target: String?
    var reportsResourceUse: Bool

    /// subject / baseline for each pair of rounds.
    var ratios: [Double] {
        zip(subject.roundFigures, baseline.roundFigures).map { $1 > 0 ? $0 / $1 : 0 }
    }

    var medianRatio: Double { median(ratios) }
    var spread: (low: Double, high: Double) { (ratios.min() ?? 0, ratios.max() ?? 0) }

    /// new / old for each pair (subject / previous build's subject); empty without a previous build.
    var previousRatios: [Double] {
        guard let previous else { return [] }
        return zip(subject.roundFigures, previous.roundFigures).map { $1 > 0 ? $0 / $1 : 0 }
    }

    /// Whether this build is slower than the previous one beyond the spread: every pair says so.
    var isRegression: Bool {
        let ratios = previousRatios
        guard let low = ratios.min(), let high = ratios.max() else { return false }
        return kind == .latency ? low > 1 : high < 1
    }

    /// Whether the median ratio meets ``target`` ("≤ x" or "≥ x"); nil without one.
    var meetsTarget: Bool? {
        guard let target else { return nil }
        let parts = target.split(separator: " ")
        guard parts.count == 2, let bound = Double(parts[1]) else { return nil }
        return parts[0] == "≤" ? medianRatio <= bound : medianRatio >= bound
    }
}

/// Every paired row printed so far, for the summary table (a constant holding a lock).
let pairedRows = LockedRows()

/// A list of rows behind a lock.
final class LockedRows: @unchecked Sendable {  // invariant: `rows` is only touched under `lock`
    private let lock = NSLock()
    private var rows: [PairedRow] = []

    func append(_ row: PairedRow) {
        lock.lock()
        defer { lock.unlock() }
        rows.append(row)
    }

    var all: [PairedRow] {
        lock.lock()
        defer { lock.unlock() }
        return rows
    }
}

/// The median of some values (the mean of the middle two for an even count), or 0 when there are none.
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// Times `subject` and `baseline` in alternating rounds — subject, baseline, subject, baseline … `plan.pairs`
/// times — after a warm-up of each, and prints the row: each side's median call time, the median of the
/// per-pair ratios (subject / baseline of the same pair) and their spread (lowest–highest). Every pair sees the
/// same machine state, so a shared VM's drift (a third within minutes) lands in the spread, not the ratio.
/// - Parameters:
///   - names: The two sides' names.
///   - plan: Pairs and round scale.
///   - calls: Calls per round in the full run.
///   - warmUp: Calls of each side before the first round.
///   - target: The issue's target on the ratio ("≤ 1.25"), printed and checked in the summary.
///   - resourceUse: Also print context switches and CPU time per call (network rows).
@discardableResult
func comparePaired(
    _ names: (subject: String, baseline: String),
    plan: PairedPlan,
    calls: Int,
    warmUp: Int = 20,
    target: String? = nil,
    resourceUse: Bool = false,
    _ subject: () async throws -> Void,
    _ baseline: () async throws -> Void
) async rethrows -> PairedRow {
    if PreviousBuild.isWorker {
        try await PreviousBuild.serve(row: names.subject, warmUp: { for _ in 0..<warmUp { try await subject() } }) { calls in
            var side = PairedSide(name: names.subject)
            try await timeRound(calls, into: &side, subject)
            return (side.roundFigures.first ?? 0, side.use)
        }
        return PairedRow(section: "", kind: .latency, subject: PairedSide(name: ""), baseline: PairedSide(name: ""), reportsResourceUse: false)
    }
    let worker = PreviousBuild.worker
    worker?.start(row: names.subject)
    for _ in 0..<warmUp { try await subject() }
    for _ in 0..<warmUp { try await baseline() }
    let perRound = plan.calls(calls)
    var subjectSide = PairedSide(name: names.subject)
    var baselineSide = PairedSide(name: names.baseline)
    var previousSide = worker.map { _ in PairedSide(name: "previous build") }
    for _ in 0..<plan.pairs {
        try await timeRound(perRound, into: &subjectSide, subject)
        try await timeRound(perRound, into: &baselineSide, baseline)
        if let worker {
            let (figure, use) = worker.round(calls: perRound)
            previousSide?.roundFigures.append(figure)
            previousSide?.use.add(use)
        }
    }
    worker?.finish(row: names.subject)
    let row = PairedRow(
        section: currentSection.withLock { $0 }, kind: .latency, subject: subjectSide, baseline: baselineSide,
        previous: previousSide, target: target, reportsResourceUse: resourceUse
    )
    printPaired(row)
    return row
}

/// Runs one round of `calls` calls, appending its median call time and resource use to `side`.
private func timeRound(_ calls: Int, into side: inout PairedSide, _ body: () async throws -> Void) async rethrows {
    var samples: [Double] = []
    samples.reserveCapacity(calls)
    let clock = ContinuousClock()
    let start = ResourceUse.now()
    for _ in 0..<calls {
        let begin = clock.now
        try await body()
        samples.append((clock.now - begin).nanoseconds)
    }
    side.use.add(since: start, calls: calls)
    side.roundFigures.append(median(samples))
}

/// Like ``comparePaired(_:plan:calls:warmUp:target:resourceUse:_:_:)`` for throughput: each round is one call
/// of `subject` or `baseline` that performs `calls` operations (however it spreads them over tasks or
/// threads) and the round's figure is operations per second of wall time; the ratio is subject / baseline.
@discardableResult
func compareThroughputPaired(
    _ names: (subject: String, baseline: String),
    plan: PairedPlan,
    calls: Int,
    target: String? = nil,
    resourceUse: Bool = false,
    _ subject: (Int) async throws -> Void,
    _ baseline: (Int) async throws -> Void
) async rethrows -> PairedRow {
    let perRound = plan.calls(calls)
    let clock = ContinuousClock()
    if PreviousBuild.isWorker {
        try await PreviousBuild.serve(row: names.subject, warmUp: { try await subject(max(1, perRound / 10)) }) { calls in
            let start = ResourceUse.now()
            let begin = clock.now
            try await subject(calls)
            var use = ResourceUse()
            use.add(since: start, calls: calls)
            return (Double(calls) / ((clock.now - begin).nanoseconds / 1e9), use)
        }
        return PairedRow(section: "", kind: .throughput, subject: PairedSide(name: ""), baseline: PairedSide(name: ""), reportsResourceUse: false)
    }
    let worker = PreviousBuild.worker
    worker?.start(row: names.subject)
    try await subject(max(1, perRound / 10))
    try await baseline(max(1, perRound / 10))
    var subjectSide = PairedSide(name: names.subject)
    var baselineSide = PairedSide(name: names.baseline)
    var previousSide = worker.map { _ in PairedSide(name: "previous build") }
    for _ in 0..<plan.pairs {
        if let worker {
            let (figure, use) = worker.round(calls: perRound)
            previousSide?.roundFigures.append(figure)
            previousSide?.use.add(use)
        }
        var start = ResourceUse.now()
        var begin = clock.now
        try await subject(perRound)
        subjectSide.roundFigures.append(Double(perRound) / ((clock.now - begin).nanoseconds / 1e9))
        subjectSide.use.add(since: start, calls: perRound)
        start = ResourceUse.now()
        begin = clock.now
        try await baseline(perRound)
        baselineSide.roundFigures.append(Double(perRound) / ((clock.now - begin).nanoseconds / 1e9))
        baselineSide.use.add(since: start, calls: perRound)
    }
    worker?.finish(row: names.subject)
    let row = PairedRow(
        section: currentSection.withLock { $0 }, kind: .throughput, subject: subjectSide, baseline: baselineSide,
        previous: previousSide, target: target, reportsResourceUse: resourceUse
    )
    printPaired(row)
    return row
}

/// Prints a paired row and keeps it for the summary and the JSON results.
func printPaired(_ row: PairedRow) {
    pairedRows.append(row)
    let unit: (Double) -> String = { value in
        row.kind == .latency ? String(format: "%9.2f µs", value / 1000) : String(format: "%9.0f /s", value)
    }
    let spread = row.spread
    var line = String(
        format: "%-46@ %@ | %-40@ %@ | ratio %6.3f× (%.3f–%.3f, %d pairs)",
        row.subject.name as NSString, unit(median(row.subject.roundFigures)) as NSString,
        row.baseline.name as NSString, unit(median(row.baseline.roundFigures)) as NSString,
        row.medianRatio, spread.low, spread.high, row.ratios.count
    )
    if let target = row.target { line += "  target \(target)" }
    print(line)
    if let previous = row.previous {
        let ratios = row.previousRatios
        print(
            String(
                format: "    previous build: %@ | new / old %6.3f× (%.3f–%.3f)%@",
                unit(median(previous.roundFigures)) as NSString, median(ratios), ratios.min() ?? 0, ratios.max() ?? 0,
                (row.isRegression ? "  SLOWER than the previous build beyond the spread" : "") as NSString
            )
        )
    }
    if row.reportsResourceUse {
        var line = String(
            format: "    per request: %@ %.2f switches, %.1f µs CPU | %@ %.2f switches, %.1f µs CPU",
            "ours" as NSString, row.subject.use.switchesPerCall, row.subject.use.cpuMicrosecondsPerCall,
            "baseline" as NSString, row.baseline.use.switchesPerCall, row.baseline.use.cpuMicrosecondsPerCall
        )
        if let previous = row.previous {
            line += String(format: " | previous %.2f switches, %.1f µs CPU", previous.use.switchesPerCall, previous.use.cpuMicrosecondsPerCall)
        }
        print(line)
    }
    let figures: (PairedSide) -> ResultRow.Figures = { side in
        let value = median(side.roundFigures)
        return ResultRow.Figures(
            name: side.name,
            p50Microseconds: row.kind == .latency ? value / 1000 : (value > 0 ? 1e6 / value : 0),
            p99Microseconds: 0,
            opsPerSecond: row.kind == .latency ? (value > 0 ? 1e9 / value : 0) : value,
            samples: side.use.calls
        )
    }
    recordedRows.withLock {
        $0.append(ResultRow(section: row.section, ours: figures(row.subject), baseline: figures(row.baseline), ratio: row.medianRatio))
    }
}

/// Prints every paired row's median ratio, spread and target in one table.
func printPairedSummary() {
    let rows = pairedRows.all
    guard !rows.isEmpty else { return }
    let againstPrevious = rows.contains { $0.previous != nil }
    print("\n== Summary: median ratio (spread) per row, ours / baseline\(againstPrevious ? "; new / old against the previous build" : "") ==")
    print(String(format: "%-70@ %-8@ %8@ %-17@ %-16@ %@", "row" as NSString, "kind" as NSString, "ratio" as NSString, "spread" as NSString, "target" as NSString, (againstPrevious ? "new / old (spread)" : "") as NSString))
    for row in rows {
        let spread = row.spread
        let verdict = row.meetsTarget.map { $0 ? "met" : "missed" } ?? ""
        let name = "\(row.subject.name) vs \(row.baseline.name)"
        var previous = ""
        if row.previous != nil {
            let ratios = row.previousRatios
            previous = String(format: "%6.3f× (%.3f–%.3f)%@", median(ratios), ratios.min() ?? 0, ratios.max() ?? 0, row.isRegression ? " SLOWER" : "")
        }
        print(
            String(
                format: "%-70@ %-8@ %7.3f× %-17@ %-16@ %@",
                String(name.prefix(70)) as NSString, (row.kind == .latency ? "time" : "ops/s") as NSString, row.medianRatio,
                String(format: "%.3f–%.3f", spread.low, spread.high) as NSString,
                (row.target.map { "\($0) \(verdict)" } ?? "") as NSString, previous as NSString
            )
        )
    }
    let regressions = rows.filter(\.isRegression)
    if againstPrevious {
        print(regressions.isEmpty ? "no row is slower than the previous build beyond its spread"
            : "\(regressions.count) row(s) slower than the previous build beyond the spread: a regression is a defect")
    }
}
