import Foundation
import Synchronization

/// One printed row, kept for `Benchmarks/results/latest.json`.
struct ResultRow: Codable, Sendable {
    struct Figures: Codable, Sendable {
        var name: String
        var p50Microseconds: Double
        var p99Microseconds: Double
        var opsPerSecond: Double
        var samples: Int
    }

    var section: String
    var ours: Figures
    var baseline: Figures
    /// ours p50 / baseline p50 (throughput rows: ours ops/s / baseline ops/s; memory rows: growth / reference).
    var ratio: Double
    /// For memory rows: growth of the peak resident set, in MiB.
    var peakGrowthMiB: Double? = nil
}

/// Every row printed so far, in order (a constant holding a lock, not mutable global state).
let recordedRows = Mutex<[ResultRow]>([])
/// The section printed last, so rows know which table they belong to.
let currentSection = Mutex<String>("")

/// Prints a section header and makes it the section of the following rows.
func printSection(_ title: String) {
    currentSection.withLock { $0 = title }
    print("\n== \(title) ==")
}

extension Measurement {
    var figures: ResultRow.Figures {
        ResultRow.Figures(
            name: name,
            p50Microseconds: percentile(50) / 1000,
            p99Microseconds: percentile(99) / 1000,
            opsPerSecond: opsPerSecond,
            samples: samples.count
        )
    }
}

/// Writes every recorded row, with the machine's core count and the date, as JSON.
/// - Parameter path: Where to write; its directory is created.
func writeResults(to path: String) throws {
    struct Document: Codable {
        var date: Date
        var cores: Int
        var rows: [ResultRow]
    }
    let document = Document(date: Date(), cores: ProcessInfo.processInfo.activeProcessorCount, rows: recordedRows.withLock { $0 })
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.dateEncodingStrategy = .iso8601
    let url = URL(fileURLWithPath: path)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try encoder.encode(document).write(to: url)
}
