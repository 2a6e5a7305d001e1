import ArgumentParser
import Foundation
import Logging

/// The options that select a pipeline: backend, capacities, cache mode, TLS trust, logging. Shared by every
/// subcommand that needs a cache (`@OptionGroup var pipeline: PipelineOptions`).
struct PipelineOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The storage backend: memory, disk, tiered (memory over disk), encrypted (disk with HTTPS responses "
                + "encrypted), redis or tiered-redis (memory over Redis)."
        )
    )
    var backend: StorageBackend = .memory

    @OptionGroup var redis: RedisOptions

    @Option(help: ArgumentHelp("The cache directory of the disk, tiered and encrypted backends.", valueName: "dir"))
    var cacheDir: String?

    @Option(
        help: ArgumentHelp(
            "The key file of the encrypted backend; it must exist unless --create-key is given.",
            valueName: "file"
        )
    )
    var keyFile: String?

    @Flag(help: "Create the --key-file with a new random key (mode 0600) when it does not exist.")
    var createKey = false

    @Flag(help: "Shared-cache semantics (s-maxage, no private responses) instead of a private cache.")
    var shared = false

    @Flag(
        inversion: .prefixedNo,
        help: "Concurrent requests that one response can answer share one trip to the origin (default: on)."
    )
    var coalescing = true

    @Option(help: ArgumentHelp("Memory capacity in bytes.", valueName: "bytes"))
    var memoryCapacity: Int = 64 << 20

    @Option(help: ArgumentHelp("Disk capacity in bytes (disk, tiered and encrypted backends).", valueName: "bytes"))
    var diskCapacity: Int = 1 << 30

    @Option(
        name: .customLong("cacert"),
        help: ArgumentHelp(
            "A PEM file of certificates or CAs to trust in addition to the system store (as curl's --cacert).",
            valueName: "file"
        )
    )
    var caFile: String?

    @Option(
        name: .customLong("capath"),
        help: ArgumentHelp(
            "A directory of hashed CA certificates (as curl's --capath); default: the system's, /etc/ssl/certs.",
            valueName: "dir"
        )
    )
    var caDirectory: String?

    @Option(
        help: ArgumentHelp(
            "Log level on stderr: trace, debug, info, notice, warning, error or critical (default: warning).",
            valueName: "level"
        ),
        transform: { text in
            guard let level = Logger.Level(rawValue: text) else {
                throw ValidationError(
                    "'\(text)' is not a log level (trace, debug, info, notice, warning, error, critical)"
                )
            }
            return level
        }
    )
    var logLevel: Logger.Level = .warning

    func validate() throws {
        if memoryCapacity < 0 { throw ValidationError("--memory-capacity must be 0 or more bytes") }
        if diskCapacity < 0 { throw ValidationError("--disk-capacity must be 0 or more bytes") }
        if backend.usesDirectory, cacheDir == nil {
            throw ValidationError("--backend \(backend.rawValue) needs --cache-dir <dir>")
        }
        if !backend.usesDirectory, cacheDir != nil {
            throw ValidationError("--cache-dir is only used by the disk, tiered and encrypted backends")
        }
        try redis.validate(usesRedis: backend.usesRedis, backend: backend.rawValue)
        if keyFile != nil, backend != .encrypted {
            throw ValidationError("--key-file is only used by --backend encrypted")
        }
        if backend == .encrypted, keyFile == nil {
            throw ValidationError("--backend encrypted needs --key-file <file>")
        }
        if createKey, keyFile == nil { throw ValidationError("--create-key is only used with --backend encrypted --key-file") }
        if let cacheDir {
            let tier = EncryptedTier(cacheDirectory: cacheDir)
            if let keyFile {
                try tier.validate(keyFile: keyFile, createKey: createKey)
            } else {
                try tier.refusePlaintextWrites(remedy: "--backend encrypted --key-file <file>")
            }
        }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ValidationError("--cacert \(caFile): no such readable file")
        }
        var isDirectory: ObjCBool = false
        if let caDirectory,
            !FileManager.default.fileExists(atPath: caDirectory, isDirectory: &isDirectory) || !isDirectory.boolValue
        {
            throw ValidationError("--capath \(caDirectory): no such directory")
        }
    }
}
