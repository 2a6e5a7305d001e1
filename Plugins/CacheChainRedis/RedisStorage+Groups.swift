public import CacheChainCore

extension RedisStorage {
    /// Where the set of a cache group's variants lives (``removeEntries(inGroups:origin:)``).
    var groupPrefix: String { "\(configuration.namespace):g:" }

    /// The set of the variants of a group on an origin (RFC 9875), kept by ``store(_:)`` for every entry whose
    /// response has `Cache-Groups`: members are the entry hash, a NUL byte and the variant's field.
    func groupSetKey(origin: String, group: String) -> [UInt8] {
        Array((groupPrefix + origin + " ").utf8) + Array(group.utf8)
    }

    /// Removes every variant of the groups on an origin (RFC 9875) through each group's set: one script per
    /// group, no `SCAN`.
    /// - Parameters:
    ///   - groups: The group names.
    ///   - origin: The origin, `CacheKey.origin`.
    /// - Throws: `CacheChainError` (`storage-failed`) when Redis cannot be reached or refuses the removal.
    /// - Complexity: One round trip per group, and O(r) inside Redis for the r variants removed.
    public func removeEntries(inGroups groups: [String], origin: String) async throws {
        guard !groups.isEmpty else { return }
        let sets = groups.map { groupSetKey(origin: origin, group: $0) }
        let bodyPrefix = Array(self.bodyPrefix.utf8)
        let endpoint = "\(configuration.endpoint)"
        try await pool.withConnection { connection throws(CacheChainError) in
            for set in sets {
                _ = try connection.run([Array("EVAL".utf8), Array(RedisScripts.removeGroup.utf8), Array("1".utf8), set, bodyPrefix])
                    .refusingErrors("the removal of a cache group's entries", endpoint: endpoint)
            }
        }
    }
}
