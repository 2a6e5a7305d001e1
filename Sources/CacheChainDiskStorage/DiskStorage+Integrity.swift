public import CacheChainCore

extension DiskStorage {
    /// What ``DiskStorage/checkIntegrity()`` found.
    public struct IntegrityReport: Sendable, CustomStringConvertible {
        /// The number of entries read and checked.
        public var checkedEntries: Int
        /// One line per problem: SQLite's own check, totals that disagree with the rows, entries whose
        /// file is missing or whose bytes fail their checksum.
        public var problems: [String]

        /// Whether nothing was wrong.
        public var isSound: Bool { problems.isEmpty }

        /// A one-line summary.
        public var description: String {
            if isSound { return "sound: \(checkedEntries) entries checked" }
            return "\(problems.count) problem(s): \(problems.prefix(5).joined(separator: "; "))"
        }
    }

    /// Checks the whole cache without changing it: SQLite's `PRAGMA integrity_check`, the exact totals
    /// against the rows, and every entry (metadata decodes, checksum of metadata + body, file present).
    /// For tools and tests; a damaged entry is also caught (and removed) by the lookup that reads it.
    /// - Returns: The report.
    /// - Throws: `CacheChainError` when the index cannot be read at all.
    /// - Complexity: O(total bytes stored).
    public func checkIntegrity() async throws(CacheChainError) -> IntegrityReport {
        try await io.run { () throws(CacheChainError) in
            try flushUses()
            var problems = try index.check().filter { $0 != "ok" }.map { "index: \($0)" }
            let totals = try index.totals()
            let recount = try index.recount()
            if totals != recount {
                problems.append(
                    "totals row says \(totals.bytes) bytes in \(totals.count) entries, rows hold \(recount.bytes) in \(recount.count)"
                )
            }
            var checked = 0
            try index.rows { row in
                checked += 1
                do throws(CacheChainError) {
                    _ = try decode(row, inMemoryLimit: 0)
                } catch {
                    problems.append("entry \(row.id): \(error.message)")
                }
            }
            return IntegrityReport(checkedEntries: checked, problems: problems)
        }
    }
}
