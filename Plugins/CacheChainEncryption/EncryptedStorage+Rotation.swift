import CacheChainCore

extension EncryptedStorage {
    /// What ``reencryptEntries()`` did.
    public struct ReencryptionReport: Sendable, Hashable {
        /// Entries opened with an older key and sealed again with the current one.
        public var reencrypted: Int
        /// Entries already sealed with the current key.
        public var alreadyCurrent: Int
        /// Entries whose key is no longer provided (left in place; see ``EncryptedStorage/removeUnreadableEntries()``).
        public var unreadable: Int
        /// Entries that failed to open (altered or damaged): deleted.
        public var rejected: Int

        /// Creates a report.
        /// - Parameters:
        ///   - reencrypted: Entries sealed again.
        ///   - alreadyCurrent: Entries already current.
        ///   - unreadable: Entries without a provided key.
        ///   - rejected: Damaged entries deleted.
        public init(reencrypted: Int = 0, alreadyCurrent: Int = 0, unreadable: Int = 0, rejected: Int = 0) {
            self.reencrypted = reencrypted
            self.alreadyCurrent = alreadyCurrent
            self.unreadable = unreadable
            self.rejected = rejected
        }
    }

    /// Seals every entry written with an older (still provided) key again with the current key, so that
    /// the older key can then be retired. Run after a rotation; entries stay readable throughout.
    /// - Returns: What was done.
    /// - Throws: `CacheChainError.Code.keyUnavailable` when there is no current key, or the wrapped
    ///   backend's error.
    /// - Complexity: O(n) header reads, plus one decryption and encryption per re-sealed entry.
    @discardableResult
    public func reencryptEntries() async throws -> ReencryptionReport {
        guard let current = keyProvider.currentKey else {
            throw CacheChainError(.keyUnavailable, "no current encryption key is provided: nothing can be re-encrypted")
        }
        var report = ReencryptionReport()
        for innerKey in try await wrapped.keys() {
            for sealed in try await wrapped.entries(for: innerKey) {
                let entry: CacheEntry
                do throws(CacheChainError) {
                    let header = try EnvelopeCodec.header(of: sealed.cached.body)
                    if header.keyID == current.id {
                        report.alreadyCurrent += 1
                        continue
                    }
                    guard keyProvider.key(withID: header.keyID) != nil else {
                        report.unreadable += 1
                        continue
                    }
                    entry = try open(sealed)
                } catch {
                    await reject(sealed, key: nil, error)
                    report.rejected += 1
                    continue
                }
                try await wrapped.store(try seal(entry, with: current))
                try await wrapped.remove(sealed.key, variantKey: sealed.variantKey)
                report.reencrypted += 1
            }
        }
        return report
    }

    /// Removes every entry not sealed with the current key: the alternative to ``reencryptEntries()`` when
    /// old entries are not worth keeping.
    /// - Complexity: O(n) header reads.
    public func removeEntriesNotSealedWithCurrentKey() async throws {
        let currentID = keyProvider.currentKey?.id
        try await wrapped.removeEntries(where: { sealed in
            (try? EnvelopeCodec.header(of: sealed.cached.body).keyID) != currentID
        })
    }

    /// Removes every entry that can no longer be opened because its key is not provided (after a key was
    /// destroyed: crypto-shredding leaves ciphertext nobody can read; this reclaims its space), or whose
    /// header is damaged.
    /// - Complexity: O(n) header reads.
    public func removeUnreadableEntries() async throws {
        let provider = keyProvider
        try await wrapped.removeEntries(where: { sealed in
            guard let header = try? EnvelopeCodec.header(of: sealed.cached.body) else { return true }
            return provider.key(withID: header.keyID) == nil
        })
    }
}
