import ArgumentParser

/// The `--backend` choices.
enum StorageBackend: String, CaseIterable, ExpressibleByArgument {
    /// A `MemoryStorage` of `--memory-capacity` bytes (the default of `batch`).
    case memory
    /// A `DiskStorage` in `--cache-dir`, up to `--disk-capacity` bytes.
    case disk
    /// A `TieredStorage`: `--memory-capacity` bytes of memory in front of the disk backend.
    case tiered
    /// Disk storage in `--cache-dir` whose HTTPS responses are encrypted (AES-256-GCM, `HTTPSEncryptionInterceptor`)
    /// into `--cache-dir`/encrypted with the key in `--key-file`.
    case encrypted
    /// A `RedisStorage` at `--redis-url`, shared by every process given the same URL and namespace.
    case redis
    /// A `TieredStorage`: `--memory-capacity` bytes of memory in front of the Redis backend.
    case tieredRedis = "tiered-redis"

    /// Whether the backend keeps files in `--cache-dir`.
    var usesDirectory: Bool { self == .disk || self == .tiered || self == .encrypted }

    /// Whether the backend keeps entries in Redis (`--redis-url`).
    var usesRedis: Bool { self == .redis || self == .tieredRedis }
}
