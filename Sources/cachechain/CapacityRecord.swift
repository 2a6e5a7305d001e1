import Foundation

/// The disk capacity a cache directory was given, kept in `<dir>/cachechain-capacity` (the bytes in decimal), so
/// that `stats` shows the capacity the cache was created with and later runs keep it.
///
/// A storing command (`get`, `batch` with a disk backend) records its `--disk-capacity` when given, and the
/// default (1 GiB) when the directory has no record yet; without `--disk-capacity` it uses the recorded one.
/// The commands that only read or remove (`stats`, `ls`, `explain`, `purge`) take no capacity and use the record.
enum CapacityRecord {
    /// The capacity of a directory that has none recorded and was given none: 1 GiB.
    static let defaultCapacity = 1 << 30

    /// The record's path in a cache directory.
    static func path(in directory: String) -> String { directory + "/cachechain-capacity" }

    /// The recorded capacity, `nil` when there is none (a directory created before records, or no cache).
    static func read(in directory: String) -> Int? {
        guard let data = FileManager.default.contents(atPath: path(in: directory)) else { return nil }
        return Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)).flatMap { $0 >= 0 ? $0 : nil }
    }

    /// The capacity a command uses: the one it was given, else the recorded one, else the default.
    static func capacity(given: Int?, in directory: String) -> Int {
        given ?? read(in: directory) ?? defaultCapacity
    }

    /// Records `bytes` as the directory's capacity, when it differs from the record; best effort (a directory
    /// that cannot be written keeps its record, and the command goes on).
    static func record(_ bytes: Int, in directory: String) {
        guard read(in: directory) != bytes else { return }
        try? Data("\(bytes)\n".utf8).write(to: URL(fileURLWithPath: path(in: directory)), options: .atomic)
    }
}
