public import CacheChainCore

extension MemoryStorage {
    /// Removes every variant on an origin whose `Cache-Groups` names one of the groups (RFC 9875), through the
    /// store's group index: only the variants listed under those groups are visited, each checked under its
    /// shard's lock (a variant replaced meanwhile by one without the group stays).
    /// - Parameters:
    ///   - groups: The group names.
    ///   - origin: The origin, `CacheKey.origin`.
    /// - Complexity: O(m) for the m variants listed under the groups; independent of the number stored.
    public func removeEntries(inGroups groups: [String], origin: String) async {
        guard !groups.isEmpty else { return }
        let wanted = Set(groups)
        let members = groupIndex.withLock { $0.take(groups: groups, origin: origin) }
        for member in members {
            let removed = shards[shardIndex(for: member.key)].withLock { shard in
                shard.remove(member.key, variantKey: member.variantKey) { entry in
                    entry.key.origin == origin && entry.cacheGroups.contains(where: wanted.contains)
                }
            }
            if let removed { account(removedCost: removed.cost, count: 1) }
        }
    }

    /// Lists a just-stored variant under its groups, rebuilding the index from the shards when leftovers of
    /// evicted or replaced variants have piled up.
    func indexGroups(_ groups: [String], of entry: CacheEntry) {
        let live = totals.withLock { $0.count }
        let needsCompaction = groupIndex.withLock { index in
            index.add(MemoryGroupIndex.Member(key: entry.key, variantKey: entry.variantKey), groups: groups)
            return index.needsCompaction(liveVariants: live)
        }
        guard needsCompaction else { return }
        let entries = shards.flatMap { shard in shard.withLock { $0.entries } }
        groupIndex.withLock { $0.rebuild(from: entries) }
    }
}
