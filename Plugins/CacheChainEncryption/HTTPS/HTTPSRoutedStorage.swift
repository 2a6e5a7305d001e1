public import CacheChainCore
public import CacheChainPolicy
public import Foundation
public import HTTPTypes

/// One storage made of a plain backend and an encrypted one, each entry routed by its URL scheme: the
/// backend behind ``HTTPSEncryptionInterceptor`` and the client's management API.
///
/// Lookups and stores go to the backend the ``HTTPSEncryptionMode`` names for the key's scheme; removals,
/// purges and `keys()` apply to both backends (so an entry stored under an earlier mode is still found and
/// removed); ``usage()`` adds the two backends' figures.
public struct HTTPSRoutedStorage: CacheStorage {
    /// The backend for responses that are not encrypted.
    public let plain: any CacheStorage
    /// The backend for encrypted responses; `nil` in ``HTTPSEncryptionMode/httpsInMemoryOnly`` mode.
    public let encrypted: EncryptedStorage?
    /// Which responses are encrypted.
    public let mode: HTTPSEncryptionMode

    /// Combines a plain and an encrypted backend.
    /// - Parameters:
    ///   - plain: The backend for responses that are not encrypted.
    ///   - encrypted: The encrypted backend (its wrapped backend must not be `plain`).
    ///   - mode: ``HTTPSEncryptionMode/encryptHTTPS`` or ``HTTPSEncryptionMode/encryptEverything``.
    public init(plain: any CacheStorage, encrypted: EncryptedStorage, mode: HTTPSEncryptionMode = .encryptHTTPS) {
        self.plain = plain
        self.encrypted = encrypted
        self.mode = mode
    }

    /// A plain backend whose HTTPS responses are kept in memory only: nothing is encrypted.
    /// - Parameter plain: The backend; HTTPS responses reach only its memory tier (a `TieredStorage`'s
    ///   memory, or a memory backend), never a disk.
    public init(keepingHTTPSInMemoryOnly plain: any CacheStorage) {
        self.plain = plain
        self.encrypted = nil
        self.mode = .httpsInMemoryOnly
    }

    /// The backend entries of a scheme are looked up in and stored to.
    /// - Parameter scheme: The URL scheme.
    /// - Returns: The encrypted backend for routes to it (when there is one), otherwise the plain backend.
    public func backend(forScheme scheme: String) -> any CacheStorage {
        if mode.route(forScheme: scheme) == .encrypted, let encrypted { return encrypted }
        return plain
    }

    private var backends: [any CacheStorage] {
        if let encrypted { [plain, encrypted] } else { [plain] }
    }

    /// The key of the backend of the key's scheme.
    /// - Parameter key: The primary key.
    /// - Returns: That backend's `CacheStorage.varyDigestKey(for:)`.
    public func varyDigestKey(for key: CacheKey) -> VaryDigestKey {
        backend(forScheme: key.scheme).varyDigestKey(for: key)
    }

    /// The variants that may answer a request, from the backend of the key's scheme.
    /// - Parameters:
    ///   - key: The primary key.
    ///   - request: The request.
    /// - Returns: That backend's candidates.
    /// - Throws: That backend's error.
    public func entries(for key: CacheKey, matching request: HTTPRequest) async throws -> [CacheEntry] {
        try await backend(forScheme: key.scheme).entries(for: key, matching: request)
    }

    /// The key's variants from the backend of its scheme.
    /// - Parameter key: The primary key.
    /// - Returns: The variants, most recently stored first.
    /// - Throws: That backend's error.
    public func entries(for key: CacheKey) async throws -> [CacheEntry] {
        try await backend(forScheme: key.scheme).entries(for: key)
    }

    /// Stores an entry in the backend of its scheme; a route to memory only caps its storage policy at
    /// `.allowedInMemoryOnly`.
    /// - Parameter entry: The entry.
    /// - Throws: That backend's error (`CacheChainError.Code.keyUnavailable` from the encrypted backend
    ///   when no current key is provided).
    public func store(_ entry: CacheEntry) async throws {
        var entry = entry
        if mode.route(forScheme: entry.key.scheme) == .plainInMemoryOnly {
            entry.cached.storagePolicy = entry.cached.storagePolicy.capped(at: .allowedInMemoryOnly)
        }
        try await backend(forScheme: entry.key.scheme).store(entry)
    }

    /// Removes every variant of a key from both backends.
    /// - Parameter key: The primary key.
    public func remove(_ key: CacheKey) async throws {
        for backend in backends { try await backend.remove(key) }
    }

    /// Removes one variant from both backends.
    /// - Parameters:
    ///   - key: The primary key.
    ///   - variantKey: The variant.
    public func remove(_ key: CacheKey, variantKey: String) async throws {
        for backend in backends { try await backend.remove(key, variantKey: variantKey) }
    }

    /// Removes every entry from both backends.
    public func removeAll() async throws {
        for backend in backends { try await backend.removeAll() }
    }

    /// Every key in either backend (the encrypted backend's keys are decrypted).
    /// - Returns: The keys.
    public func keys() async throws -> [CacheKey] {
        var keys = Set<CacheKey>()
        for backend in backends { keys.formUnion(try await backend.keys()) }
        return keys.sorted()
    }

    /// The sum of the backends' capacities, per tier (as ``usage()`` sums them).
    public var capacities: StorageUsage {
        get async {
            var total = StorageUsage()
            for backend in backends {
                let capacities = await backend.capacities
                total.memoryCapacity += capacities.memoryCapacity
                total.diskCapacity += capacities.diskCapacity
            }
            return total
        }
    }

    /// The two backends' figures added together.
    /// - Returns: The usage.
    public func usage() async -> StorageUsage {
        var total = StorageUsage()
        for backend in backends {
            let usage = await backend.usage()
            total.memoryBytes += usage.memoryBytes
            total.memoryCapacity += usage.memoryCapacity
            total.diskBytes += usage.diskBytes
            total.diskCapacity += usage.diskCapacity
            total.entryCount += usage.entryCount
        }
        return total
    }

    /// Removes the entries stored at or after a date from both backends.
    /// - Parameter date: The earliest `CacheEntry.storedAt` to remove.
    public func removeEntries(storedSince date: Date) async throws {
        for backend in backends { try await backend.removeEntries(storedSince: date) }
    }

    /// Removes the matching entries from both backends.
    /// - Parameter shouldRemove: Decides per entry.
    public func removeEntries(where shouldRemove: @Sendable (CacheEntry) -> Bool) async throws {
        for backend in backends { try await backend.removeEntries(where: shouldRemove) }
    }

    /// Removes the entries stale at `now` for at least `olderThan` from both backends.
    /// - Parameters:
    ///   - now: The current time.
    ///   - olderThan: How long an entry must have been stale.
    ///   - policy: The freshness rules.
    /// - Returns: The number of variants removed, both backends together.
    /// - Throws: A backend's storage error.
    public func removeExpired(now: Date, olderThan: Duration, policy: CachePolicyConfiguration) async throws -> Int {
        var removed = 0
        for backend in backends { removed += try await backend.removeExpired(now: now, olderThan: olderThan, policy: policy) }
        return removed
    }

    /// Removes the entries under a URL prefix from both backends.
    /// - Parameter urlPrefix: The prefix.
    public func removeEntries(urlPrefix: String) async throws {
        for backend in backends { try await backend.removeEntries(urlPrefix: urlPrefix) }
    }

    /// Removes every entry of a target (every `QUERY` of a URI) from the backend of its scheme.
    /// - Parameter key: A key of the target; its discriminator is ignored.
    public func removeEntries(sameTargetAs key: CacheKey) async throws {
        try await backend(forScheme: key.scheme).removeEntries(sameTargetAs: key)
    }

    /// Removes every entry of the groups on an origin (RFC 9875) from the backend of the origin's scheme.
    /// - Parameters:
    ///   - groups: The group names.
    ///   - origin: The origin, `CacheKey.origin` (`scheme://authority`).
    public func removeEntries(inGroups groups: [String], origin: String) async throws {
        let scheme = origin.prefix { $0 != ":" }
        try await backend(forScheme: String(scheme)).removeEntries(inGroups: groups, origin: origin)
    }

    /// Removes the matching tagged entries from both backends.
    /// - Parameters:
    ///   - name: The userInfo name.
    ///   - shouldRemove: Decides per entry.
    public func removeEntries(
        withUserInfoNamed name: String,
        where shouldRemove: @Sendable (CacheEntry) -> Bool
    ) async throws {
        for backend in backends { try await backend.removeEntries(withUserInfoNamed: name, where: shouldRemove) }
    }
}
