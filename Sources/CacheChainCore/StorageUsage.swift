/// How much a backend holds and may hold, per tier: the four numbers `URLCache` reports.
///
/// A memory-only backend reports zero disk figures; a disk-only backend zero memory figures.
public struct StorageUsage: Sendable, Hashable, Codable {
    /// Bytes held in memory (`URLCache.currentMemoryUsage`).
    public var memoryBytes: Int
    /// Memory capacity in bytes (`URLCache.memoryCapacity`).
    public var memoryCapacity: Int
    /// Bytes held on disk (`URLCache.currentDiskUsage`).
    public var diskBytes: Int
    /// Disk capacity in bytes (`URLCache.diskCapacity`).
    public var diskCapacity: Int
    /// The number of stored variants, over all tiers.
    public var entryCount: Int

    /// Creates a usage report.
    /// - Parameters:
    ///   - memoryBytes: Bytes in memory.
    ///   - memoryCapacity: Memory capacity.
    ///   - diskBytes: Bytes on disk.
    ///   - diskCapacity: Disk capacity.
    ///   - entryCount: Stored variants.
    public init(memoryBytes: Int = 0, memoryCapacity: Int = 0, diskBytes: Int = 0, diskCapacity: Int = 0, entryCount: Int = 0) {
        self.memoryBytes = memoryBytes
        self.memoryCapacity = memoryCapacity
        self.diskBytes = diskBytes
        self.diskCapacity = diskCapacity
        self.entryCount = entryCount
    }

    /// The largest tier capacity: what the "about 5% of the capacity" storage rule is measured against.
    public var largestCapacity: Int { max(memoryCapacity, diskCapacity) }
}
