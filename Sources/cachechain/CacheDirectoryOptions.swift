import ArgumentParser
import CacheChain
import CacheChainEncryption
import Foundation

/// The options of the subcommands that work on a persistent cache directory (`get`, `stats`, `ls`, `purge`,
/// `explain`): where it is, its capacity, and the encrypted HTTPS tier.
///
/// Layout: a `DiskStorage` in the directory itself holds plain (HTTP) responses; with `--encrypt-https` the
/// HTTPS responses are sealed into a second `DiskStorage` in `<dir>/encrypted` with the keys of `--key-file`
/// (the layout of `cachechain batch --backend encrypted`).
struct CacheDirectoryOptions: ParsableArguments {
    @Option(
        name: .customLong("cache-dir"),
        help: ArgumentHelp(
            "The cache directory (default: $XDG_CACHE_HOME/cachechain, else ~/.cache/cachechain).", valueName: "dir"
        )
    )
    var cacheDirectory: String?

    @Option(help: ArgumentHelp("Disk capacity in bytes, per tier.", valueName: "bytes"))
    var diskCapacity: Int = 1 << 30

    @Flag(help: "Encrypt HTTPS responses at rest (AES-256-GCM) in <dir>/encrypted; needs --key-file.")
    var encryptHTTPS = false

    @Option(
        help: ArgumentHelp(
            "The key file for --encrypt-https, created with a new random key (mode 0600) when missing.",
            valueName: "file"
        )
    )
    var keyFile: String?

    func validate() throws {
        if diskCapacity < 0 { throw ValidationError("--disk-capacity must be 0 or more bytes") }
        if encryptHTTPS, keyFile == nil { throw ValidationError("--encrypt-https needs --key-file <file>") }
        if keyFile != nil, !encryptHTTPS { throw ValidationError("--key-file is only used with --encrypt-https") }
    }

    /// The cache directory: `--cache-dir`, else `$XDG_CACHE_HOME/cachechain`, else `~/.cache/cachechain`.
    var directory: String {
        if let cacheDirectory { return cacheDirectory }
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty { return xdg + "/cachechain" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.cache/cachechain"
    }

    /// A client configuration over the directory: plain `DiskStorage`, plus the encrypted HTTPS tier when asked.
    /// - Throws: `CacheChainError` when the directory or the key file cannot be used.
    func makeConfiguration() throws -> HTTPCacheClient.Configuration {
        var configuration = HTTPCacheClient.Configuration(storage: try DiskStorage(directory: directory, capacity: diskCapacity))
        if encryptHTTPS, let keyFile {
            let sealed = try DiskStorage(directory: directory + "/encrypted", capacity: diskCapacity)
            configuration.encryptHTTPS(with: EncryptedStorage(wrapping: sealed, keys: try KeyFileProvider(path: keyFile)))
        }
        return configuration
    }

    /// Whether the directory holds an encrypted tier this invocation cannot read (no `--encrypt-https`).
    var hasUnreadEncryptedTier: Bool {
        !encryptHTTPS && FileManager.default.fileExists(atPath: directory + "/encrypted/cachechain-format")
    }
}
