public import CacheChainCore
public import CacheChainPolicy
public import Foundation
import HTTPTypes

/// A storage backend that encrypts every entry before handing it to another backend: AES-256-GCM at rest
/// for memory, disk, Redis or any `CacheStorage`.
///
/// Switching it on is one line around the backend you already use:
///
/// ```swift
/// let storage = EncryptedStorage(wrapping: MemoryStorage(), keys: try KeyFileProvider(path: keyPath))
/// ```
///
/// What the wrapped backend sees per entry: a key and variant key that are HMAC-SHA256 digests of the real
/// cache key and variant (under a key derived from the master key), an empty `200` response, userInfo
/// names that are digests of the real names (values dropped), the original `StoragePolicy` (so
/// `.allowedInMemoryOnly` entries still never reach a disk) and `CacheEntry.storedAt`, and a body that
/// is the sealed envelope: URL, request and response fields, userInfo, times and body are all inside it.
///
/// The envelope: `magic "CCEN" · format version · key ID · salt · nonce · segment size`, then the plaintext,
/// the entry's one binary record (as every backend stores it), in 64 KiB segments, each sealed with AES-256-GCM
/// under a per-entry subkey `HKDF-SHA256(master, salt)`, with the header, the entry's names, the segment
/// index and a final-segment flag as associated data. Truncating, reordering or swapping segments, moving
/// an envelope under another entry, flipping any byte or changing the version makes the entry fail to open.
///
/// Fail closed: an entry that does not open (altered, truncated, moved, another format version — an older
/// build's envelopes are not read — or sealed with a
/// key that is no longer provided) is deleted, reported as a `CacheEvent.Kind.storageError` event to
/// `events`, and the lookup throws `CacheChainError` (`integrity-check-failed` or `key-unavailable`),
/// which the interceptors turn into a miss with a `storage-error` reason. No plaintext is returned.
///
/// The wrapped backend must be dedicated to this storage: management calls (``removeAll()``, purges)
/// apply to every entry in it.
public struct EncryptedStorage: CacheStorage {
    /// The backend that holds the sealed entries.
    public let wrapped: any CacheStorage
    /// Where the keys come from.
    public let keyProvider: any KeyProvider
    let events: CacheEventSink
    let segmentSize: Int
    let spool: SpoolPolicy

    /// Wraps a backend.
    /// - Parameters:
    ///   - storage: The backend that will hold the sealed entries (dedicated to this storage).
    ///   - keys: The key provider: its current key seals new entries, every key it provides opens them.
    ///   - events: Receives a `CacheEvent.Kind.storageError` event (reasons `encrypted-entry-rejected` and
    ///     the error code) for every entry that fails to open and is deleted.
    ///   - spoolDirectory: Where envelopes and decrypted bodies larger than `inMemoryBodyLimit` are written,
    ///     segment by segment, so memory stays bounded: files without a name (`BodyFileWriter`), freed
    ///     when the body is released or the process dies, so no decrypted body is left behind after a crash.
    ///     A decrypted body still occupies disk blocks while in use: keep this directory on a tmpfs when that
    ///     matters — `CurlTransport` spools downloads the same way. The temporary directory by default.
    ///   - inMemoryBodyLimit: The largest envelope or decrypted body kept in memory; 4 MiB by default.
    public init(
        wrapping storage: any CacheStorage,
        keys: any KeyProvider,
        events: CacheEventSink = .none,
        spoolDirectory: String = NSTemporaryDirectory(),
        inMemoryBodyLimit: Int = 4 << 20
    ) {
        self.init(
            wrapping: storage, keys: keys, events: events, segmentSize: EnvelopeHeader.defaultSegmentSize,
            spool: SpoolPolicy(directory: spoolDirectory, inMemoryLimit: inMemoryBodyLimit)
        )
    }

    init(
        wrapping storage: any CacheStorage,
        keys: any KeyProvider,
        events: CacheEventSink,
        segmentSize: Int,
        spool: SpoolPolicy = SpoolPolicy(directory: NSTemporaryDirectory(), inMemoryLimit: 4 << 20)
    ) {
        precondition(EnvelopeHeader.segmentSizes.contains(segmentSize), "segment size out of range")
        BodyFileWriter.sweepLeftovers(in: spool.directory)
        wrapped = storage
        keyProvider = keys
        self.events = events
        self.segmentSize = segmentSize
        self.spool = spool
    }

    /// Returns the key's variants, decrypted, most recently stored first.
    ///
    /// Looks under the names of every provided key (current first). A variant that fails to open is
    /// deleted and reported, and the call throws, so the request becomes a miss.
    /// - Parameter key: The primary key.
    /// - Returns: The variants.
    /// - Throws: `CacheChainError` with code `integrity-check-failed` or `key-unavailable` when a stored
    ///   variant failed to open (it is deleted), or the wrapped backend's error.
    /// - Complexity: One HMAC and one wrapped lookup per provided key, then one HKDF and the decryption of
    ///   each variant found (linear in its size).
    public func entries(for key: CacheKey) async throws -> [CacheEntry] {
        var found: [CacheEntry] = []
        var failure: CacheChainError?
        for encryptionKey in keyProvider.availableKeys {
            let innerKey = try EntryNames.innerKey(for: key, under: encryptionKey)
            for sealed in try await wrapped.entries(for: innerKey) {
                do throws(CacheChainError) {
                    let entry = try open(sealed, likelyKey: encryptionKey)
                    guard entry.key == key else {
                        throw CacheChainError(.integrityCheckFailed, "an encrypted entry holds another cache key than its name")
                    }
                    if !found.contains(where: { $0.variantKey == entry.variantKey }) { found.append(entry) }
                } catch {
                    await reject(sealed, key: key, error)
                    failure = failure ?? CacheChainError(error.code, error.message, cacheKey: key)
                }
            }
        }
        if let failure { throw failure }
        return found
    }

    /// Seals an entry with the current key and stores it, replacing the same variant (also one sealed with
    /// an older key). `.notAllowed` entries are not stored.
    /// - Parameter entry: The entry.
    /// - Throws: `CacheChainError.Code.keyUnavailable` when the provider has no current key (nothing is
    ///   stored: no key, no stored responses), or the wrapped backend's error.
    /// - Complexity: One HKDF, the encryption of the entry (linear in its size) and one wrapped store, plus
    ///   one wrapped removal per older key still provided.
    public func store(_ entry: CacheEntry) async throws {
        guard entry.cached.storagePolicy != .notAllowed else { return }
        guard let current = keyProvider.currentKey else {
            throw CacheChainError(.keyUnavailable, "no current encryption key is provided: the entry is not stored", cacheKey: entry.key)
        }
        try await wrapped.store(try seal(entry, with: current))
        for older in keyProvider.availableKeys where older.id != current.id {
            let names = try EntryNames(key: entry.key, variantKey: entry.variantKey, under: older)
            try await wrapped.remove(names.innerKey, variantKey: names.variant)
        }
    }

    /// Removes every variant of a key (under every provided key's names).
    /// - Parameter key: The primary key.
    /// - Complexity: One HMAC and one wrapped removal per provided key.
    public func remove(_ key: CacheKey) async throws {
        for encryptionKey in keyProvider.availableKeys {
            try await wrapped.remove(try EntryNames.innerKey(for: key, under: encryptionKey))
        }
    }

    /// Removes one variant of a key.
    /// - Parameters:
    ///   - key: The primary key.
    ///   - variantKey: The variant.
    /// - Complexity: Two HMACs and one wrapped removal per provided key.
    public func remove(_ key: CacheKey, variantKey: String) async throws {
        for encryptionKey in keyProvider.availableKeys {
            let names = try EntryNames(key: key, variantKey: variantKey, under: encryptionKey)
            try await wrapped.remove(names.innerKey, variantKey: names.variant)
        }
    }

    /// Removes every entry of the wrapped backend, readable or not.
    /// - Complexity: The wrapped backend's.
    public func removeAll() async throws {
        try await wrapped.removeAll()
    }

    /// The wrapped backend's key (a `DiskStorage` keeps its own, shared by the processes that open it);
    /// entries reach the wrapped backend sealed, their requests and variant keys included.
    /// - Parameter key: The primary key.
    /// - Returns: The wrapped backend's `CacheStorage.varyDigestKey(for:)`.
    public func varyDigestKey(for key: CacheKey) -> VaryDigestKey {
        wrapped.varyDigestKey(for: key)
    }

    /// The wrapped backend's usage: sealed bytes (a little more than the plaintext) and entry count.
    /// - Returns: The usage.
    public func usage() async -> StorageUsage {
        await wrapped.usage()
    }

    /// The wrapped backend's capacities.
    public var capacities: StorageUsage {
        get async { await wrapped.capacities }
    }

    // MARK: - Sealing

    /// The inner entry that stands for `entry`, sealed with `key`.
    func seal(_ entry: CacheEntry, with key: EncryptionKey) throws(CacheChainError) -> CacheEntry {
        let names = try EntryNames(key: entry.key, variantKey: entry.variantKey, under: key)
        let envelope = try EnvelopeCodec.seal(entry, key: key, names: names, segmentSize: segmentSize, spool: spool)
        var tags: [String: Data] = [:]
        for name in entry.cached.userInfo.names { tags[try EntryNames.tagName(name, under: key)] = Self.tagMarker }
        if EntryNames.isTargetTagged(entry.key) { tags[try EntryNames.targetTagName(entry.key, under: key)] = Self.tagMarker }
        for group in entry.cacheGroups {
            tags[try EntryNames.groupTagName(origin: entry.key.origin, group: group, under: key)] = Self.tagMarker
        }
        let innerKey = names.innerKey
        var inner = CacheEntry(
            key: innerKey,
            request: HTTPRequest(method: .get, scheme: innerKey.scheme, authority: innerKey.authority, path: innerKey.path),
            cached: CachedResponse(
                response: HTTPResponse(status: .ok),
                body: envelope,
                userInfo: CacheUserInfo(encodedValues: tags),
                storagePolicy: entry.cached.storagePolicy,
                requestTime: entry.storedAt,
                responseTime: entry.storedAt
            ),
            storedAt: entry.storedAt
        )
        inner.variantKey = names.variant
        return inner
    }

    /// Opens an inner entry.
    /// - Parameters:
    ///   - sealed: The inner entry.
    ///   - metadataOnly: Stops after the metadata; the entry's body is then empty.
    ///   - likelyKey: The key whose names found the entry, if known (saves asking the provider for it).
    func open(_ sealed: CacheEntry, metadataOnly: Bool = false, likelyKey: EncryptionKey? = nil) throws(CacheChainError) -> CacheEntry {
        try EnvelopeCodec.open(sealed, keys: keyProvider, likelyKey: likelyKey, metadataOnly: metadataOnly, spool: spool)
    }

    /// Deletes an inner entry that failed to open and reports it.
    func reject(_ sealed: CacheEntry, key: CacheKey?, _ error: CacheChainError) async {
        try? await wrapped.remove(sealed.key, variantKey: sealed.variantKey)
        events.emit(CacheEvent(.storageError, key: key, reasons: ["encrypted-entry-rejected", error.code.rawValue]))
    }

    /// The JSON value stored under each digested userInfo name (the real value stays sealed).
    static let tagMarker = Data("1".utf8)
}
