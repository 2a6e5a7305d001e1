import ArgumentParser
import CacheChain
import CacheChainCurl
import CacheChainEncryption
import CacheChainRedis
import Foundation
import Logging

extension PipelineOptions {
    /// The system's directory of hashed CA certificates, kept next to `--cacert` so the file adds to the
    /// system store instead of replacing it.
    static let systemCADirectory = "/etc/ssl/certs"

    /// A logger writing to stderr at `--log-level` (stdout is reserved for command output).
    func makeLogger() -> Logger {
        var logger = Logger(label: "cachechain") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = logLevel
        return logger
    }

    /// The storage backend of `--backend`, and what a directory that cannot be written gave up (see
    /// ``DegradedDiskOpening``): read-only or no cache, with a warning on stderr.
    /// - Throws: `CacheChainError` when the cache cannot be opened even in a degraded way (Redis misconfigured,
    ///   a directory of another format).
    func makeStorage() throws -> (storage: any CacheStorage, note: String?) {
        switch backend {
        case .memory:
            return (MemoryStorage(capacity: memoryCapacity), nil)
        case .disk, .encrypted:
            // With `encrypted`, HTTPS responses are sealed into `<dir>/encrypted`; the routing is added by `makeClient`.
            let opened = try DegradedDiskOpening.open(cacheDir ?? ".", capacity: diskCapacity)
            return (opened.storage ?? MemoryStorage(capacity: 0), opened.note)
        case .tiered:
            let opened = try DegradedDiskOpening.open(cacheDir ?? ".", capacity: diskCapacity)
            let memory = MemoryStorage(capacity: memoryCapacity)
            guard let disk = opened.storage else { return (memory, opened.note.map { $0 + " on disk (memory only)" }) }
            return (TieredStorage(memory: memory, disk: disk), opened.note.map { "disk tier " + $0 })
        case .redis, .tieredRedis:
            return (try redis.makeStorage(tiered: backend == .tieredRedis, memoryCapacity: memoryCapacity), nil)
        }
    }

    /// The encrypted backend of `--backend encrypted`: a `DiskStorage` in `<cache-dir>/encrypted` sealed with
    /// the keys in `--key-file` (created with a random key, mode 0600, when missing and `--create-key` is
    /// given), which must hold the key the tier records (see `EncryptedTier`).
    /// - Returns: `nil` for the other backends.
    /// - Throws: `CacheChainError` when the key file is missing, unusable (e.g. readable by others) or does not
    ///   hold the tier's key, or the directory cannot be opened.
    func makeEncryptedStorage() throws -> EncryptedStorage? {
        guard backend == .encrypted, let cacheDir, let keyFile else { return nil }
        let tier = EncryptedTier(cacheDirectory: cacheDir)
        let keys = try tier.openKeys(keyFile: keyFile, createKey: createKey, records: true)
        let sealed = try DiskStorage(directory: tier.directory, capacity: diskCapacity)
        return EncryptedStorage(wrapping: sealed, keys: keys)
    }

    /// The CA directory libcurl uses: `--capath`, else the system's when `--cacert` is given (so the file is
    /// trusted in addition to it), else libcurl's built-in one.
    var effectiveCADirectory: String? {
        if let caDirectory { return caDirectory }
        guard caFile != nil else { return nil }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: Self.systemCADirectory, isDirectory: &isDirectory)
        return exists && isDirectory.boolValue ? Self.systemCADirectory : nil
    }

    /// A client over the selected backend and the libcurl transport (with the TLS trust of `--cacert` and
    /// `--capath`), with `RedirectInterceptor` outermost, and its description for the hello.
    /// - Parameter logger: The client's logger.
    /// - Returns: The client and ``pipelineDescription(of:storageNote:)``.
    /// - Throws: What ``makeStorage()`` throws.
    func makeClient(logger: Logger) throws -> (client: HTTPCacheClient, description: String) {
        let encrypted = try makeEncryptedStorage()  // the key is checked before any storage is opened
        let (storage, note) = try makeStorage()
        // The capacity the directory now has, for `stats` and later runs without --disk-capacity.
        if let cacheDir, note == nil { CapacityRecord.record(diskCapacity, in: cacheDir) }
        var configuration = HTTPCacheClient.Configuration(
            storage: storage,
            policy: CachePolicyConfiguration(
                mode: shared ? .sharedCache : .privateCache,
                servesStaleWhenOriginUnreachable: staleWhenUnreachable,
                targetedCacheControlFields: targetedCacheControlFields
            ),
            logger: logger,
            outerInterceptors: [RedirectInterceptor()],
            isRequestCoalescingEnabled: coalescing
        )
        if let encrypted { configuration.encryptHTTPS(with: encrypted) }
        let transport = CurlTransport(configuration: .init(caFile: caFile, caDirectory: effectiveCADirectory))
        let client = HTTPCacheClient(transport: transport, configuration: configuration)
        return (client, pipelineDescription(of: client, storageNote: note))
    }

    /// The chain a client really runs, outermost first and ending with the transport, e.g.
    /// `Redirect → CachePolicy (coalescing, ranges) → Revalidation → StorageDecision → libcurl`: each interceptor's type
    /// name without its `Interceptor` suffix (the cache policy with its plan's inputs).
    /// - Parameter client: The client.
    /// - Returns: The chain.
    static func chainDescription(of client: HTTPCacheClient) -> String {
        let names = client.pipeline.interceptors.map { interceptor in
            if let policy = interceptor as? CachePolicyInterceptor { return policy.description }  // with its plan's inputs
            let name = String(describing: type(of: interceptor))
            return name.hasSuffix("Interceptor") && name != "Interceptor" ? String(name.dropLast("Interceptor".count)) : name
        }
        return (names + ["libcurl"]).joined(separator: " → ")
    }

    /// A one-line, human-readable description of the pipeline: mode (and whether stale responses are served when the
    /// origin is unreachable), backend (and what a directory that cannot
    /// be written gave up), capacities, the client's real chain, TLS trust.
    /// - Parameters:
    ///   - client: The client whose chain is described.
    ///   - storageNote: What the storage gave up (a directory opened read-only…), if anything.
    /// - Returns: The description.
    func pipelineDescription(of client: HTTPCacheClient, storageNote: String?) -> String {
        // RFC 9111 §4.2.4's switch, as the client's policy resolved it (on by default in a private cache only).
        let servesStale = staleWhenUnreachable ?? !shared
        var mode = (shared ? "shared cache" : "private cache") + (servesStale ? ", stale when the origin is unreachable" : "")
        let targeted = targetedCacheControlFields.map(\.rawName)
        if shared, !targeted.isEmpty { mode += ", obeying " + targeted.joined(separator: " then ") }
        let storage: String =
            switch backend {
            case .memory: "memory backend, capacity \(memoryCapacity) bytes"
            case .disk: "disk backend in \(cacheDir ?? "?"), capacity \(diskCapacity) bytes"
            case .tiered:
                "tiered backend: memory \(memoryCapacity) bytes over disk \(diskCapacity) bytes in \(cacheDir ?? "?")"
            case .encrypted:
                "disk backend in \(cacheDir ?? "?") with HTTPS responses AES-256-GCM-encrypted in \(cacheDir ?? "?")/encrypted"
                    + " (key file \(keyFile ?? "?")), capacity \(diskCapacity) bytes each"
            case .redis: "redis backend: \(redis.description), capacity Redis's maxmemory"
            case .tieredRedis: "tiered backend: memory \(memoryCapacity) bytes over \(redis.description)"
            }
        let largestCapacity: Int =
            switch backend {
            case .memory, .redis, .tieredRedis: memoryCapacity
            case .disk, .encrypted: diskCapacity
            case .tiered: max(memoryCapacity, diskCapacity)
            }
        // Redis reports no capacity (its maxmemory evicts), so only its own entry size limit applies there.
        let largest =
            backend == .redis
            ? "largest entry \((try? redis.configuration().maximumEntrySize) ?? 0) bytes (RedisStorage's limit)"
            : "largest entry \(Int(Double(largestCapacity) * 0.05)) bytes (5%)"
        let trust: String =
            switch (caFile, effectiveCADirectory) {
            case (nil, nil): "system CA store"
            case (let file?, nil): "\(file) and libcurl's built-in CA directory"
            case (nil, let directory?): "CA directory \(directory)"
            case (let file?, let directory?): "\(file) and CA directory \(directory)"
            }
        let degraded = storageNote.map { " (\($0))" } ?? ""
        return "\(mode); \(storage)\(degraded), \(largest); chain: \(Self.chainDescription(of: client)); TLS trust: \(trust)"
    }
}
