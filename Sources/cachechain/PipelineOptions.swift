import ArgumentParser
import CacheChain
import Foundation
import Logging

/// The options of `batch`'s pipeline: the shared cache flags (``CacheOptions``), cache mode, TLS trust, logging
/// (`@OptionGroup var pipeline: PipelineOptions`).
struct PipelineOptions: ParsableArguments {
    /// The cache flags every subcommand shares (`--backend`, `--cache-dir`, capacities, key handling, Redis).
    @OptionGroup var cache: CacheOptions

    /// The backend: `--backend`, `memory` by default (see ``CacheOptions``).
    var backend: StorageBackend { cache.resolvedBackend(default: .memory) }
    var redis: RedisOptions { cache.redis }
    /// The cache directory of the backends that keep files (`--cache-dir` or the shared default), else `nil`.
    var cacheDir: String? { backend.usesDirectory ? cache.directory : nil }
    /// `--key-file`.
    var keyFile: String? { cache.keyFile }
    /// `--create-key`.
    var createKey: Bool { cache.createKey }
    /// `--memory-capacity`.
    var memoryCapacity: Int { cache.memoryCapacity }
    /// `--disk-capacity`.
    var diskCapacity: Int { cache.diskCapacity }

    @Flag(help: "Shared-cache semantics (s-maxage, no private responses) instead of a private cache.")
    var shared = false

    @Flag(
        inversion: .prefixedNo,
        help: """
            Serve a stored response stale when the origin cannot be reached (connection refused, reset or closed \
            without a response; RFC 9111 §4.2.4) unless the response forbids it (default: on in a private cache, \
            off with --shared).
            """
    )
    var staleWhenUnreachable: Bool?

    @Option(
        name: .customLong("targeted-cache-control"),
        help: ArgumentHelp(
            """
            With --shared: a targeted cache-control field (RFC 9213) that takes precedence over Cache-Control; \
            repeat it for several, first in precedence first (default: CDN-Cache-Control; 'none' for none).
            """,
            valueName: "field"
        )
    )
    var targetedCacheControl: [String] = []

    /// The targeted fields `--targeted-cache-control` names (`CDN-Cache-Control` when not given, none for `none`).
    var targetedCacheControlFields: [HTTPField.Name] {
        guard !targetedCacheControl.isEmpty else { return [.cdnCacheControl] }
        return targetedCacheControl.filter { $0 != "none" }.compactMap { HTTPField.Name($0) }
    }

    @Flag(
        inversion: .prefixedNo,
        help: "Concurrent requests that one response can answer share one trip to the origin."
    )
    var coalescing = true

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
        try cache.validate(allowed: StorageBackend.allCases, default: .memory, command: "batch")
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
        if let bad = targetedCacheControl.first(where: { $0 != "none" && HTTPField.Name($0) == nil }) {
            throw ValidationError("--targeted-cache-control '\(bad)' is not a field name (a token such as CDN-Cache-Control)")
        }
        if !targetedCacheControl.isEmpty, !shared {
            throw ValidationError("--targeted-cache-control is read only by a shared cache: add --shared")
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
