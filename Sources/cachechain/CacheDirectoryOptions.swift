import ArgumentParser
import CacheChain
import CacheChainEncryption
import Foundation

/// The options of the subcommands that work on a persistent cache directory (`get`, `stats`, `ls`, `purge`,
/// `explain`): where it is and its encrypted HTTPS tier (``CacheLocationOptions``); `get` adds
/// ``CacheStoreOptions``. The capacity is the one recorded in the directory (``CapacityRecord``) unless a storing
/// command is given one.
///
/// Layout: a `DiskStorage` in the directory itself holds plain (HTTP) responses; with `--encrypt-https` the
/// HTTPS responses are sealed into a second `DiskStorage` in `<dir>/encrypted` with the keys of `--key-file`
/// (the layout of `cachechain batch --backend encrypted`). See ``EncryptedTier`` for the safeguards: no HTTPS
/// response in clear next to an encrypted tier, no key created without `--create-key`, no key that does not
/// hold the tier's key.
struct CacheDirectoryOptions: ParsableArguments {
    /// Where the cache is: `--backend`, `--cache-dir`, `--encrypt-https`, `--key-file`.
    @OptionGroup var location: CacheLocationOptions

    /// `--key-file`.
    var keyFile: String? { location.keyFile }
    /// Whether HTTPS responses go to the encrypted tier: `--encrypt-https` or `--backend encrypted`.
    var encryptHTTPS: Bool { backend == .encrypted }
    /// The backend: `disk` by default.
    var backend: StorageBackend { location.resolvedBackend(default: .disk) }

    func validate() throws {
        try location.validate(allowed: [.disk, .encrypted, .redis, .tieredRedis], default: .disk, command: "this command")
        if encryptHTTPS, keyFile == nil { throw ValidationError("--encrypt-https (--backend encrypted) needs --key-file <file>") }
        if keyFile != nil, !encryptHTTPS { throw ValidationError("--key-file is only used with --encrypt-https (--backend encrypted)") }
    }

    /// The directory's encrypted HTTPS tier.
    var encryptedTier: EncryptedTier { EncryptedTier(cacheDirectory: directory) }

    /// Checks, before anything is opened, that the key file exists or may be created.
    /// - Parameter createKey: Whether the command was given `--create-key`.
    /// - Throws: `ValidationError` (exit 64).
    func validateKeyFile(createKey: Bool) throws {
        if createKey, !encryptHTTPS { throw ValidationError("--create-key is only used with --encrypt-https --key-file") }
        if encryptHTTPS, let keyFile { try encryptedTier.validate(keyFile: keyFile, createKey: createKey) }
    }

    /// Fails a command that only reads or removes (`stats`, `ls`, `explain`, `purge`) when it cannot run, so that
    /// it fails before creating anything: no such directory, no cache in it, or no encrypted tier for
    /// `--encrypt-https`.
    /// - Throws: `ToolExitCode.failure` (exit 1), after printing why on stderr.
    func requireCache() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ToolExitCode.failing("Error: there is no cache in \(directory): the directory does not exist; check --cache-dir")
        }
        guard FileManager.default.fileExists(atPath: directory + "/cachechain-format") else {
            throw ToolExitCode.failing("Error: there is no cache in \(directory) (nothing has been stored there): check --cache-dir")
        }
        if encryptHTTPS, !encryptedTier.exists {
            throw ToolExitCode.failing("Error: \(encryptedTier.directory) does not exist: this cache has no encrypted HTTPS tier; run without --encrypt-https")
        }
    }

    /// The cache directory: `--cache-dir`, else `$XDG_CACHE_HOME/cachechain`, else `~/.cache/cachechain`.
    var directory: String { location.directory }

    /// Refuses, for the commands that read a directory (`stats`, `ls`, `purge`, `explain`), the backends and
    /// flags they do not use.
    /// - Parameter command: The command's name.
    /// - Throws: `ValidationError` (exit 64).
    func validateDirectoryCommand(_ command: String) throws {
        guard backend == .disk || backend == .encrypted else {
            throw ValidationError("\(command) works on a cache directory: use --backend disk or encrypted, not \(backend.rawValue)")
        }
        try validateKeyFile(createKey: false)
    }

    /// A client configuration over the directory: plain `DiskStorage`, plus the encrypted HTTPS tier when asked.
    ///
    /// The key file is opened and checked against the tier's recorded key ID before either storage is opened.
    /// - Parameters:
    ///   - createKey: Whether a missing key file is created with a new key (`get --create-key`).
    ///   - recordsKey: Whether the tier records the current key's ID (commands that store); `false` for
    ///     commands that only read.
    ///   - accessMode: `readOnly` for the commands that only read (`stats`, `ls`, `explain`, and `get` when the
    ///     cache cannot be written): nothing in the directory is created or changed.
    ///   - capacity: The disk capacity per tier; `nil` for the one recorded in the directory (else 1 GiB).
    /// - Throws: `CacheChainError` when the directory or the key file cannot be used, or the key file does not
    ///   hold the tier's key.
    func makeConfiguration(
        createKey: Bool = false,
        recordsKey: Bool = true,
        accessMode: DiskStorage.AccessMode = .readWrite,
        capacity: Int? = nil
    ) throws -> HTTPCacheClient.Configuration {
        let capacity = CapacityRecord.capacity(given: capacity, in: directory)
        let keys = try keyFile.map { try encryptedTier.openKeys(keyFile: $0, createKey: createKey, records: recordsKey) }
        func open(_ directory: String) throws -> DiskStorage {
            try DiskStorage(configuration: .init(directory: directory, capacity: capacity, accessMode: accessMode))
        }
        var configuration = HTTPCacheClient.Configuration(storage: try open(directory))
        if encryptHTTPS, let keys {
            let sealed = try open(encryptedTier.directory)
            configuration.encryptHTTPS(with: EncryptedStorage(wrapping: sealed, keys: keys))
        }
        return configuration
    }

    /// Whether the directory holds an encrypted tier this invocation cannot read (no `--encrypt-https`).
    var hasUnreadEncryptedTier: Bool {
        !encryptHTTPS && encryptedTier.exists
    }
}
