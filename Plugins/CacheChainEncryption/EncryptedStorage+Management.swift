public import CacheChainCore
public import CacheChainPolicy
public import Foundation

extension EncryptedStorage {
    /// Every cache key with a readable entry.
    ///
    /// Opens only the metadata (the first segment) of each entry; entries that cannot be opened are skipped
    /// (see ``removeUnreadableEntries()``).
    /// - Returns: The keys, in no particular order.
    /// - Complexity: O(n) wrapped reads and first-segment decryptions.
    public func keys() async throws -> [CacheKey] {
        var keys = Set<CacheKey>()
        for innerKey in try await wrapped.keys() {
            for sealed in try await wrapped.entries(for: innerKey) {
                if let entry = try? open(sealed, metadataOnly: true) { keys.insert(entry.key) }
            }
        }
        return Array(keys)
    }

    /// Removes every entry stored at or after a date, without decrypting anything: the wrapped entries keep
    /// the real `CacheEntry.storedAt`.
    /// - Parameter date: The earliest date to remove.
    /// - Complexity: The wrapped backend's.
    public func removeEntries(storedSince date: Date) async throws {
        try await wrapped.removeEntries(storedSince: date)
    }

    /// Removes every entry for which a predicate holds; entries that cannot be opened are removed too.
    /// - Parameter shouldRemove: Decides per decrypted entry.
    /// - Complexity: O(n) decryptions of whole entries.
    public func removeEntries(where shouldRemove: @Sendable (CacheEntry) -> Bool) async throws {
        try await wrapped.removeEntries(where: { sealed in
            guard let entry = try? open(sealed) else { return true }
            return shouldRemove(entry)
        })
    }

    /// Removes every entry stale at `now` for at least `olderThan`, opening only each entry's metadata (the
    /// response head and times). Entries that cannot be opened (a key not provided) are left alone: they are
    /// not known to be expired; ``removeUnreadableEntries()`` removes them.
    /// - Parameters:
    ///   - now: The current time.
    ///   - olderThan: How long an entry must have been stale.
    ///   - policy: The freshness rules.
    /// - Returns: The number of variants removed.
    /// - Throws: The wrapped backend's storage error.
    /// - Complexity: O(n) first-segment decryptions.
    public func removeExpired(now: Date, olderThan: Duration, policy: CachePolicyConfiguration) async throws -> Int {
        let removed = LockedValue(0)
        try await wrapped.removeEntries(where: { sealed in
            guard let entry = try? open(sealed, metadataOnly: true),
                entry.isExpired(at: now, olderThan: olderThan, policy: policy)
            else { return false }
            removed.withLock { $0 += 1 }
            return true
        })
        return removed.withLock { $0 }
    }

    /// Removes every entry with a key's method and URL, whatever its discriminator (every `QUERY` of a URI): the
    /// key's plain form by name, the others through their target tag (an HMAC of the method and URL, which the
    /// wrapped backend indexes as any userInfo name), without decrypting anything.
    /// - Parameter key: A key of the target; its discriminator is ignored.
    /// - Complexity: Per provided key, two HMACs, one wrapped removal and the wrapped backend's tag search.
    public func removeEntries(sameTargetAs key: CacheKey) async throws {
        var plain = key
        plain.discriminator = ""
        try await remove(plain)
        for encryptionKey in keyProvider.availableKeys {
            let tag = try EntryNames.targetTagName(key, under: encryptionKey)
            try await wrapped.removeEntries(withUserInfoNamed: tag, where: { _ in true })
        }
    }

    /// Removes every entry of the groups on an origin (RFC 9875) through their group tags (an HMAC of origin and
    /// group, which the wrapped backend indexes as any userInfo name), without decrypting anything: the group
    /// names are never written in clear.
    /// - Parameters:
    ///   - groups: The group names.
    ///   - origin: The origin, `CacheKey.origin`.
    /// - Complexity: Per provided key and group, one HMAC and the wrapped backend's tag search.
    public func removeEntries(inGroups groups: [String], origin: String) async throws {
        for encryptionKey in keyProvider.availableKeys {
            for group in groups {
                let tag = try EntryNames.groupTagName(origin: origin, group: group, under: encryptionKey)
                try await wrapped.removeEntries(withUserInfoNamed: tag, where: { _ in true })
            }
        }
    }

    /// Removes every entry whose URL starts with a prefix, opening only each entry's metadata.
    /// - Parameter urlPrefix: The prefix.
    /// - Complexity: O(n) first-segment decryptions.
    public func removeEntries(urlPrefix: String) async throws {
        try await wrapped.removeEntries(where: { sealed in
            guard let entry = try? open(sealed, metadataOnly: true) else { return true }
            return entry.key.url.hasPrefix(urlPrefix)
        })
    }

    /// Removes every entry holding a userInfo value named `name` for which a predicate holds.
    ///
    /// The wrapped entries carry, for each userInfo name, an HMAC digest of the name (not its value), so a
    /// backend with a userInfo index still narrows the search to the tagged entries; only those are opened.
    /// - Parameters:
    ///   - name: The userInfo name.
    ///   - shouldRemove: Decides per decrypted entry.
    /// - Complexity: The wrapped backend's tag search per provided key, plus one decryption per tagged entry.
    public func removeEntries(withUserInfoNamed name: String, where shouldRemove: @Sendable (CacheEntry) -> Bool) async throws {
        for encryptionKey in keyProvider.availableKeys {
            let tag = try EntryNames.tagName(name, under: encryptionKey)
            try await wrapped.removeEntries(withUserInfoNamed: tag, where: { sealed in
                guard let entry = try? open(sealed) else { return true }
                return entry.cached.userInfo.names.contains(name) && shouldRemove(entry)
            })
        }
    }
}
