import CacheChainCore

/// ``MemoryStorage``'s index of cache groups (RFC 9875): for each (origin, group), the variants stored with that
/// group in their `Cache-Groups`, so that a group invalidation visits only them.
///
/// Filled when a variant is stored; a variant evicted, replaced or removed later stays listed (a removal checks
/// what is stored now), and the index is rebuilt from the shards when such leftovers outnumber the live
/// variants (``needsCompaction(liveVariants:)``), so it stays proportional to the store.
struct MemoryGroupIndex {
    struct Group: Hashable {
        var origin: String
        var name: String
    }

    struct Member: Hashable {
        var key: CacheKey
        var variantKey: String
    }

    private var members: [Group: Set<Member>] = [:]
    /// The (group, member) pairs listed, leftovers included.
    private(set) var pairCount = 0
    /// ``pairCount`` after the last rebuild: what the live variants' groups came to then.
    private var compactedAt = 0

    /// Lists a stored variant under each of its groups.
    mutating func add(_ member: Member, groups: [String]) {
        let origin = member.key.origin
        for name in groups where members[Group(origin: origin, name: name), default: []].insert(member).inserted {
            pairCount += 1
        }
    }

    /// Takes out and returns the variants listed under any of the groups on an origin.
    mutating func take(groups: [String], origin: String) -> Set<Member> {
        var taken = Set<Member>()
        for name in groups {
            guard let listed = members.removeValue(forKey: Group(origin: origin, name: name)) else { continue }
            pairCount -= listed.count
            taken.formUnion(listed)
        }
        return taken
    }

    /// Whether leftovers outnumber the live variants enough to rebuild the index.
    func needsCompaction(liveVariants: Int) -> Bool {
        pairCount > 2 * max(compactedAt, liveVariants) + 1024
    }

    /// Replaces the index with the groups of the live entries.
    mutating func rebuild(from entries: [CacheEntry]) {
        removeAll()
        for entry in entries {
            let groups = entry.cacheGroups
            if !groups.isEmpty { add(Member(key: entry.key, variantKey: entry.variantKey), groups: groups) }
        }
        compactedAt = pairCount
    }

    mutating func removeAll() {
        members.removeAll()
        pairCount = 0
        compactedAt = 0
    }
}
