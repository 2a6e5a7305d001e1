import ArgumentParser
import Foundation

/// The cache flags every subcommand that opens a cache shares (`@OptionGroup var cache: CacheOptions`, through
/// ``CacheDirectoryOptions`` for `get`, `stats`, `ls`, `purge` and `explain`, and ``PipelineOptions`` for
/// `batch`): the same names, help and defaults everywhere.
///
/// - `--backend`: `disk` by default, except `batch`, whose default is `memory` (a long-running process driven
///   by a program: a cache that needs no directory and leaves nothing behind; `--backend disk` shares the
///   directory of the other subcommands). The directory subcommands accept `disk` and `encrypted`, `get` also
///   `redis` and `tiered-redis`.
/// - `--cache-dir`: `$XDG_CACHE_HOME/cachechain`, else `~/.cache/cachechain`, for every backend that keeps files.
/// - Key handling: `--encrypt-https` (the same as `--backend encrypted`) with `--key-file`, and `--create-key`
///   where a command stores.
struct CacheOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The storage backend: memory, disk, tiered (memory over disk), encrypted (disk with HTTPS responses "
                + "encrypted), redis or tiered-redis (memory over Redis). Default: disk (batch: memory).",
            valueName: "backend"
        )
    )
    var backend: StorageBackend?

    @Option(
        name: .customLong("cache-dir"),
        help: ArgumentHelp(
            "The cache directory (default: $XDG_CACHE_HOME/cachechain, else ~/.cache/cachechain).", valueName: "dir"
        )
    )
    var cacheDirectory: String?

    @Option(help: ArgumentHelp("Disk capacity in bytes, per tier (default: 1 GiB).", valueName: "bytes"))
    var diskCapacity: Int = 1 << 30

    @Option(help: ArgumentHelp("Memory capacity in bytes of the memory and tiered backends (default: 64 MiB).", valueName: "bytes"))
    var memoryCapacity: Int = 64 << 20

    @Flag(help: "Encrypt HTTPS responses at rest (AES-256-GCM) in <dir>/encrypted, as --backend encrypted; needs --key-file.")
    var encryptHTTPS = false

    @Option(
        help: ArgumentHelp(
            "The key file of the encrypted HTTPS tier; it must exist unless --create-key is given.", valueName: "file"
        )
    )
    var keyFile: String?

    @Flag(help: "Create the --key-file with a new random key (mode 0600) when it does not exist.")
    var createKey = false

    @OptionGroup var redis: RedisOptions

    /// The backend in use: `--backend`, else `defaultBackend`; `--encrypt-https` turns `disk` into `encrypted`.
    /// - Parameter defaultBackend: The command's default.
    /// - Returns: The backend.
    func resolvedBackend(default defaultBackend: StorageBackend) -> StorageBackend {
        let chosen = backend ?? defaultBackend
        return encryptHTTPS && chosen == .disk ? .encrypted : chosen
    }

    /// Checks what every command checks: capacities, and `--encrypt-https` only with a disk backend.
    /// - Parameters:
    ///   - allowed: The backends the command supports.
    ///   - defaultBackend: The command's default backend.
    ///   - command: The command's name, for messages.
    /// - Throws: `ValidationError` (exit 64).
    func validate(allowed: [StorageBackend], default defaultBackend: StorageBackend, command: String) throws {
        if diskCapacity < 0 { throw ValidationError("--disk-capacity must be 0 or more bytes") }
        if memoryCapacity < 0 { throw ValidationError("--memory-capacity must be 0 or more bytes") }
        let chosen = backend ?? defaultBackend
        if encryptHTTPS, chosen != .disk, chosen != .encrypted {
            throw ValidationError("--encrypt-https is used with --backend disk (it is --backend encrypted), not \(chosen.rawValue)")
        }
        guard allowed.contains(chosen) else {
            throw ValidationError(
                "\(command) does not use --backend \(chosen.rawValue): use \(allowed.map(\.rawValue).joined(separator: ", "))"
            )
        }
        if !chosen.usesDirectory, cacheDirectory != nil {
            throw ValidationError("--cache-dir is only used by the disk, tiered and encrypted backends")
        }
        try redis.validate(usesRedis: chosen.usesRedis, backend: chosen.rawValue)
    }

    /// The cache directory: `--cache-dir`, else `$XDG_CACHE_HOME/cachechain`, else `~/.cache/cachechain`.
    var directory: String {
        if let cacheDirectory { return cacheDirectory }
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty { return xdg + "/cachechain" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.cache/cachechain"
    }
}
