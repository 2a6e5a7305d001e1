import ArgumentParser
import Foundation

/// Where a cache is and how it is read, for every subcommand that opens one (`get`, `stats`, `ls`, `purge`,
/// `explain`, `batch`): `--backend`, `--cache-dir`, `--encrypt-https`, `--key-file`. The options that size or
/// create a cache are ``CacheStoreOptions``, only on the subcommands that store, so the others' help does not list
/// them and they refuse them (exit 64).
struct CacheLocationOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The storage backend: memory, disk, tiered (memory over disk), encrypted (disk with HTTPS responses "
                + "encrypted), redis or tiered-redis (memory over Redis); each subcommand names those it uses. "
                + "Default: disk (batch: memory).",
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

    @Flag(help: "Encrypt HTTPS responses at rest (AES-256-GCM) in <dir>/encrypted, as --backend encrypted; needs --key-file.")
    var encryptHTTPS = false

    @Option(
        help: ArgumentHelp(
            "The key file of the encrypted HTTPS tier; it must exist, unless the subcommand is told to create it.",
            valueName: "file"
        )
    )
    var keyFile: String?

    /// The backend in use: `--backend`, else `defaultBackend`; `--encrypt-https` turns `disk` into `encrypted`.
    /// - Parameter defaultBackend: The command's default.
    /// - Returns: The backend.
    func resolvedBackend(default defaultBackend: StorageBackend) -> StorageBackend {
        let chosen = backend ?? defaultBackend
        return encryptHTTPS && chosen == .disk ? .encrypted : chosen
    }

    /// Checks what every command checks: `--encrypt-https` only with a disk backend, a backend the command
    /// supports, `--cache-dir` only with a backend that keeps files.
    /// - Parameters:
    ///   - allowed: The backends the command supports.
    ///   - defaultBackend: The command's default backend.
    ///   - command: The command's name, for messages.
    /// - Throws: `ValidationError` (exit 64).
    func validate(allowed: [StorageBackend], default defaultBackend: StorageBackend, command: String) throws {
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
    }

    /// The cache directory: `--cache-dir`, else `$XDG_CACHE_HOME/cachechain`, else `~/.cache/cachechain`.
    var directory: String {
        if let cacheDirectory { return cacheDirectory }
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty { return xdg + "/cachechain" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.cache/cachechain"
    }
}
