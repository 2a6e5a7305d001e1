import ArgumentParser
import Foundation

/// The cache flags of the subcommands that store (`get` through ``CacheDirectoryOptions`` and
/// ``CacheStoreOptions``, `batch` through ``PipelineOptions``): where the cache is (``CacheLocationOptions``) and
/// how it is sized and created (``CacheStoreOptions``), with the same names, help and defaults everywhere.
///
/// - `--backend`: `disk` by default, except `batch`, whose default is `memory` (a long-running process driven
///   by a program: a cache that needs no directory and leaves nothing behind; `--backend disk` shares the
///   directory of the other subcommands). The directory subcommands accept `disk` and `encrypted`, `get` also
///   `redis` and `tiered-redis`.
/// - `--cache-dir`: `$XDG_CACHE_HOME/cachechain`, else `~/.cache/cachechain`, for every backend that keeps files.
/// - Key handling: `--encrypt-https` (the same as `--backend encrypted`) with `--key-file`, and `--create-key`
///   where a command stores.
struct CacheOptions: ParsableArguments {
    @OptionGroup var location: CacheLocationOptions
    @OptionGroup var store: CacheStoreOptions

    /// `--key-file`.
    var keyFile: String? { location.keyFile }
    /// `--create-key`.
    var createKey: Bool { store.createKey }
    /// `--memory-capacity` in bytes.
    var memoryCapacity: Int { store.memoryCapacity.bytes }
    /// The disk capacity of ``directory``: `--disk-capacity`, else the recorded one, else 1 GiB.
    var diskCapacity: Int { store.diskCapacity(in: directory) }
    /// The Redis options.
    var redis: RedisOptions { store.redis }
    /// The cache directory.
    var directory: String { location.directory }

    /// The backend in use: `--backend`, else `defaultBackend`; `--encrypt-https` turns `disk` into `encrypted`.
    func resolvedBackend(default defaultBackend: StorageBackend) -> StorageBackend {
        location.resolvedBackend(default: defaultBackend)
    }

    /// Checks the location (``CacheLocationOptions/validate(allowed:default:command:)``) and the Redis options
    /// against the backend.
    /// - Throws: `ValidationError` (exit 64).
    func validate(allowed: [StorageBackend], default defaultBackend: StorageBackend, command: String) throws {
        try location.validate(allowed: allowed, default: defaultBackend, command: command)
        let chosen = location.backend ?? defaultBackend
        try redis.validate(usesRedis: chosen.usesRedis, backend: chosen.rawValue)
    }
}
