public import CacheChainCore
import CacheChainPolicy
import Foundation

/// A shared storage backend on Redis (through hiredis), so every instance of a service reuses what any
/// instance fetched.
///
/// Each primary key is one Redis hash `<namespace>:e:<METHOD URL>` holding the key and one field per
/// `Vary` variant; a variant's value carries its metadata and, up to
/// ``Configuration/inlineBodyLimit``, its body. Larger bodies are appended in 1 MiB chunks to a staging key
/// and renamed into `<namespace>:b:<id>` by the same Lua script that writes the variant, so an entry is
/// replaced atomically and never needs two copies in memory; reads of large bodies come back in chunks,
/// spooled to a file. Every body is checked against its length and checksum on read; a damaged variant is
/// a miss, is removed, and is reported as a `CacheEvent.Kind.storageError` event.
///
/// Expiry is Redis's (`PEXPIRE`, see ``Configuration/staleRetention``); capacity is Redis's `maxmemory`
/// with an LRU policy (see the README for a sample `redis.conf`). `removeAll` and purges `SCAN` and
/// `UNLINK` only this cache's namespace, never `FLUSHDB`.
///
/// Redis down, refusing `AUTH`, hung or restarted: a call fails with a `storage-failed` error (the cache
/// serves the request as a miss), and a circuit breaker (``Configuration/circuitBreaker``) then makes every
/// call fail at once for an interval, after which one call probes Redis: a hung Redis costs one command
/// timeout per interval, not one per call. ``circuitState`` tells where it stands. Blocking hiredis calls
/// run on the pool's own dispatch queues, never on Swift's cooperative pool.
///
/// Like every persistent backend it refuses `.allowedInMemoryOnly` and `.notAllowed` entries. Put it
/// behind a shared-cache client (`CachePolicyConfiguration(mode: .sharedCache)`) when several users'
/// requests go through it, so responses marked `private` never reach it.
///
/// ```swift
/// let redis = RedisStorage(configuration: .init(endpoint: .tcp(host: "10.0.0.5", port: 6379), namespace: "api-cache"))
/// let client = HTTPCacheClient(transport: CurlTransport(), configuration: .init(
///     storage: redis, policy: CachePolicyConfiguration(mode: .sharedCache)
/// ))
/// ```
public final class RedisStorage: CacheStorage {
    /// The configuration.
    public let configuration: Configuration
    let pool: RedisConnectionPool
    private let events: CacheEventSink
    /// The key of secret `Vary` fields' digests (``varyDigestKey(for:)``).
    let derivedVaryDigestKey: VaryDigestKey

    /// Creates a backend; connections are opened lazily, on first use.
    /// - Parameters:
    ///   - configuration: Endpoint, namespace, timeouts and limits.
    ///   - events: Receives a `CacheEvent.Kind.storageError` event per damaged variant found and each time
    ///     the circuit breaker opens (reasons `redis-circuit-open` and the cause).
    public init(configuration: Configuration = Configuration(), events: CacheEventSink = .none) {
        self.configuration = configuration
        self.events = events
        derivedVaryDigestKey = Self.deriveVaryDigestKey(configuration)
        BodyFileWriter.sweepLeftovers(in: configuration.spoolDirectory)
        pool = RedisConnectionPool(configuration: configuration, events: events)
    }

    var entryPrefix: String { "\(configuration.namespace):e:" }
    var bodyPrefix: String { "\(configuration.namespace):b:" }
    var stagingPrefix: String { "\(configuration.namespace):s:" }
    /// Where the set of a target's entry hashes lives (``removeEntries(sameTargetAs:)``).
    var targetPrefix: String { "\(configuration.namespace):t:" }

    /// The set of the entry hashes of a key's target (method and URL), kept for keys with a discriminator or
    /// another method than `GET`.
    func targetSetKey(_ key: CacheKey) -> [UInt8] { Array((targetPrefix + key.method + " " + key.url).utf8) }

    func hashKey(_ key: CacheKey) -> [UInt8] { Array((entryPrefix + key.stringValue).utf8) }

    /// Returns every stored variant of a key, most recently stored first.
    /// - Parameter key: The primary key.
    /// - Returns: The variants; damaged ones are removed and left out.
    /// - Throws: `CacheChainError` (`storage-failed`) when Redis cannot be reached or refuses the read (e.g.
    ///   `NOAUTH`: a password is needed).
    /// - Complexity: One `HGETALL`, plus reading each referenced body.
    public func entries(for key: CacheKey) async throws -> [CacheEntry] {
        let hash = hashKey(key)
        let configuration = self.configuration
        let bodyPrefix = self.bodyPrefix
        let events = self.events
        let endpoint = "\(configuration.endpoint)"
        return try await pool.withConnection { connection throws(CacheChainError) in
            let reply = try connection.run([Array("HGETALL".utf8), hash]).refusingErrors("HGETALL", endpoint: endpoint)
            guard case .array(let items) = reply else { return [] }
            var found: [CacheEntry] = []
            var index = 0
            while index + 1 < items.count {
                defer { index += 2 }
                guard let field = items[index].bytes, field.first == UInt8(ascii: "v"), let value = items[index + 1].bytes else { continue }
                do throws(CacheChainError) {
                    var decoded = try RedisEntryCodec.decode(value)
                    guard decoded.entry.key == key else {
                        throw CacheChainError(.integrityCheckFailed, "a Redis entry holds another key (\(decoded.entry.key))", cacheKey: key)
                    }
                    if let id = decoded.bodyID {
                        let bodyKey = Array((bodyPrefix + id).utf8)
                        decoded.entry.replaceBody(with: try RedisBodyReader.read(
                            key: bodyKey, of: decoded, connection: connection, configuration: configuration
                        ))
                    }
                    found.append(decoded.entry)
                } catch where error.code == .integrityCheckFailed {
                    events.emit(CacheEvent(.storageError, key: key, reasons: [error.code.rawValue, error.message]))
                    _ = try connection.run([
                        Array("EVAL".utf8), Array(RedisScripts.removeVariant.utf8), Array("1".utf8), hash, field, Array(bodyPrefix.utf8),
                    ])
                }
            }
            return found.sorted { $0.storedAt > $1.storedAt }
        }
    }

    /// Stores an entry atomically, replacing the variant with the same variant key.
    ///
    /// `.allowedInMemoryOnly` and `.notAllowed` entries and bodies above
    /// ``Configuration/maximumEntrySize`` are not stored.
    /// - Parameter entry: The entry.
    /// - Throws: `CacheChainError` (`storage-failed`) when Redis cannot be reached or refuses the write; the
    ///   previous variant stays intact.
    /// - Complexity: One round trip for inline bodies; one per MiB plus one for larger ones.
    public func store(_ entry: CacheEntry) async throws {
        guard entry.cached.storagePolicy == .allowed else { return }
        guard entry.cached.body.count <= configuration.maximumEntrySize else {
            events.emit(CacheEvent(.notStored, key: entry.key, reasons: ["too-large"], bytes: entry.cached.body.count))
            return
        }
        let hash = hashKey(entry.key)
        let configuration = self.configuration
        let bodyPrefix = self.bodyPrefix
        let stagingPrefix = self.stagingPrefix
        let ttl = RedisRetention.milliseconds(for: entry, staleRetention: configuration.staleRetention, now: Date())
        let targetSet = !entry.key.discriminator.isEmpty || entry.key.method != "GET" ? targetSetKey(entry.key) : nil
        let groupSets = entry.cacheGroups.map { groupSetKey(origin: entry.key.origin, group: $0) }
        try await pool.withConnection { connection throws(CacheChainError) in
            var staging: [UInt8] = []
            var bodyKey: [UInt8] = []
            let blob: [UInt8]
            if entry.cached.body.count <= configuration.inlineBodyLimit {
                blob = RedisEntryCodec.encode(entry, inlineBody: try entry.cached.body.collect())
            } else {
                let id = UUID().uuidString.lowercased()
                staging = Array((stagingPrefix + id).utf8)
                bodyKey = Array((bodyPrefix + id).utf8)
                let metadata = EntryCodec.encodeMetadata(entry)
                let checksum = try RedisBodyWriter.append(entry.cached.body, to: staging, after: metadata, connection: connection)
                blob = RedisEntryCodec.encode(metadata: metadata, bodyLength: entry.cached.body.count, bodyID: id, checksum: checksum)
            }
            let reply = try connection.run([
                Array("EVAL".utf8), Array(RedisScripts.store.utf8), Array("1".utf8), hash,
                Array("v\(entry.variantKey)".utf8), blob, Array(String(ttl).utf8), staging, bodyKey, EntryCodec.encodeKey(entry.key), Array(bodyPrefix.utf8),
            ])
            if case .error(let text) = reply {
                if !staging.isEmpty { _ = try? connection.run([Array("UNLINK".utf8), staging]) }
                throw CacheChainError(.storageFailed, "Redis refused to store an entry: \(text)", cacheKey: entry.key)
            }
            if let targetSet {
                // Indexed by target, so that an unsafe request's invalidation finds the URI's `QUERY`s without a `SCAN`.
                _ = try connection.run([
                    Array("EVAL".utf8), Array(RedisScripts.indexTarget.utf8), Array("1".utf8), targetSet, hash, Array(String(ttl).utf8),
                ]).refusingErrors("the target index of an entry", endpoint: "\(configuration.endpoint)")
            }
            // Indexed by origin and group (RFC 9875), so that a group invalidation finds its variants without a `SCAN`.
            for set in groupSets {
                _ = try connection.run([
                    Array("EVAL".utf8), Array(RedisScripts.indexGroup.utf8), Array("1".utf8), set,
                    hash + [0] + Array("v\(entry.variantKey)".utf8), Array(String(ttl).utf8),
                ]).refusingErrors("the group index of an entry", endpoint: "\(configuration.endpoint)")
            }
        }
    }

    /// Removes every variant of a key and their body keys.
    /// - Parameter key: The primary key.
    /// - Throws: `CacheChainError` (`storage-failed`) when Redis cannot be reached or refuses the removal.
    public func remove(_ key: CacheKey) async throws {
        let hash = hashKey(key)
        let bodyPrefix = Array(self.bodyPrefix.utf8)
        let endpoint = "\(configuration.endpoint)"
        try await pool.withConnection { connection throws(CacheChainError) in
            _ = try connection.run([Array("EVAL".utf8), Array(RedisScripts.remove.utf8), Array("1".utf8), hash, bodyPrefix])
                .refusingErrors("the removal of an entry", endpoint: endpoint)
        }
    }

    /// Removes every entry with a key's method and URL, whatever its discriminator (every `QUERY` of a URI): the
    /// plain key, then the entries of the target's set (kept by ``store(_:)``), in one script each.
    /// - Parameter key: A key of the target; its discriminator is ignored.
    /// - Throws: `CacheChainError` (`storage-failed`) when Redis cannot be reached or refuses the removal.
    /// - Complexity: Two round trips, and O(r) inside Redis for the r entries removed: no `SCAN`.
    public func removeEntries(sameTargetAs key: CacheKey) async throws {
        var plain = key
        plain.discriminator = ""
        try await remove(plain)
        let set = targetSetKey(key)
        let bodyPrefix = Array(self.bodyPrefix.utf8)
        let endpoint = "\(configuration.endpoint)"
        try await pool.withConnection { connection throws(CacheChainError) in
            _ = try connection.run([Array("EVAL".utf8), Array(RedisScripts.removeTarget.utf8), Array("1".utf8), set, bodyPrefix])
                .refusingErrors("the removal of a target's entries", endpoint: endpoint)
        }
    }

    /// Removes every key of this cache's namespace (and nothing else): `SCAN` + `UNLINK`, never `FLUSHDB`.
    /// - Throws: `CacheChainError` (`storage-failed`) when Redis cannot be reached.
    /// - Complexity: O(keys in the database), in batches of 1,000.
    public func removeAll() async throws {
        let pattern = RedisPattern.escaped(configuration.namespace) + ":*"
        try await pool.withConnection { connection throws(CacheChainError) in
            try RedisScan.forEachBatch(matching: pattern, connection: connection) { keys throws(CacheChainError) in
                _ = try connection.run([Array("UNLINK".utf8)] + keys)
            }
        }
    }

    /// Every key with a stored variant in this namespace.
    /// - Returns: The keys.
    /// - Throws: `CacheChainError` (`storage-failed`) when Redis cannot be reached.
    /// - Complexity: O(keys in the database) (`SCAN`), plus one `HGET` per entry.
    public func keys() async throws -> [CacheKey] {
        let pattern = RedisPattern.escaped(entryPrefix) + "*"
        return try await pool.withConnection { connection throws(CacheChainError) in
            var keys: [CacheKey] = []
            try RedisScan.forEachBatch(matching: pattern, connection: connection) { hashes throws(CacheChainError) in
                for hash in hashes {
                    guard let bytes = try connection.run([Array("HGET".utf8), hash, Array("k".utf8)]).bytes,
                        let key = EntryCodec.decodeKey(bytes)
                    else { continue }
                    keys.append(key)
                }
            }
            return keys
        }
    }

    /// No capacity (Redis's `maxmemory` limits it), without a round trip.
    public var capacities: StorageUsage { StorageUsage() }

    /// The number of keys stored in this namespace; byte figures are zero, as capacity belongs to Redis
    /// (`maxmemory`). Zero when Redis cannot be reached.
    /// - Returns: The usage.
    /// - Complexity: O(keys in the database) (`SCAN`).
    public func usage() async -> StorageUsage {
        let pattern = RedisPattern.escaped(entryPrefix) + "*"
        let count = try? await pool.withConnection { connection throws(CacheChainError) in
            var count = 0
            try RedisScan.forEachBatch(matching: pattern, connection: connection) { count += $0.count }
            return count
        }
        return StorageUsage(entryCount: count ?? 0)
    }
}
