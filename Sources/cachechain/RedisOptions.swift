import ArgumentParser
import CacheChain
import CacheChainRedis
import Foundation

/// `--redis-url` and `--redis-namespace`: where the `redis` and `tiered-redis` backends of `get` and `batch` keep
/// their entries. The URL is parsed by `RedisStorage.Configuration(url:)`, so the command accepts and refuses
/// exactly what the library does, and a Redis that is down, slow or refusing is what it is for the library: every
/// request is still answered (from the origin, as a MISS whose trace says why), never an error.
struct RedisOptions: ParsableArguments {
    /// The environment variable read when `--redis-url` is not given (keeps a password out of `ps`).
    static let urlVariable = "CACHECHAIN_REDIS_URL"

    @Option(
        name: .customLong("redis-url"),
        help: ArgumentHelp(
            "The Redis of --backend redis or tiered-redis: redis://[:password@]host[:port][/db] or "
                + "unix:///path/to/redis.sock[?db=N]; default: $\(RedisOptions.urlVariable).",
            valueName: "url"
        )
    )
    var url: String?

    @Option(
        name: .customLong("redis-namespace"),
        help: ArgumentHelp("The prefix of this cache's keys in Redis (several caches can share one Redis).", valueName: "name")
    )
    var namespace: String = "cachechain"

    /// `--redis-url`, else `$CACHECHAIN_REDIS_URL`.
    var effectiveURL: String? {
        url ?? ProcessInfo.processInfo.environment[Self.urlVariable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Checks the Redis options against the backend.
    /// - Parameters:
    ///   - usesRedis: Whether the backend keeps entries in Redis.
    ///   - backend: The backend's name, for messages.
    /// - Throws: `ValidationError` (exit 64): a Redis backend without a URL, a URL the library refuses, or
    ///   `--redis-url` with another backend.
    func validate(usesRedis: Bool, backend: String) throws {
        guard usesRedis else {
            if url != nil { throw ValidationError("--redis-url is only used by --backend redis or tiered-redis") }
            return
        }
        guard effectiveURL != nil else {
            throw ValidationError("--backend \(backend) needs --redis-url <url> (or $\(Self.urlVariable))")
        }
        if namespace.isEmpty { throw ValidationError("--redis-namespace must not be empty") }
        _ = try configuration()
    }

    /// The library's configuration for the URL and namespace.
    /// - Throws: `ValidationError` with the library's explanation when the URL is not usable.
    func configuration() throws -> RedisStorage.Configuration {
        do {
            return try RedisStorage.Configuration(url: effectiveURL ?? "", namespace: namespace)
        } catch {
            throw ValidationError("--redis-url: \(error.message)")
        }
    }

    /// A Redis backend, with a memory tier of `memoryCapacity` bytes in front of it when `tiered` (each process
    /// keeps its hot entries; a Redis hit is promoted into memory, and the memory tier answers while Redis is down).
    /// - Throws: `ValidationError` when the URL is not usable.
    func makeStorage(tiered: Bool, memoryCapacity: Int) throws -> any CacheStorage {
        let redis = RedisStorage(configuration: try configuration())
        return tiered ? TieredStorage(memory: MemoryStorage(capacity: memoryCapacity), disk: redis) : redis
    }

    /// `Redis <endpoint> database <n>, namespace <name>`, with no password.
    var description: String {
        guard let configuration = try? configuration() else { return "Redis (no usable --redis-url)" }
        return "Redis \(configuration.endpoint) database \(configuration.database), namespace \(configuration.namespace)"
    }
}
