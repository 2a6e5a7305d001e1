import ArgumentParser

/// The `--backend` choices.
enum StorageBackend: String, CaseIterable, ExpressibleByArgument {
    /// A ``MemoryStorage`` of `--memory-capacity` bytes (the default).
    case memory
    /// Files in `--cache-dir`, up to `--disk-capacity` bytes.
    case disk
    /// Memory in front of disk.
    case tiered
    /// Disk storage whose HTTPS responses are encrypted with the key in `--key-file`.
    case encrypted

    /// Whether this build can create the backend.
    var isAvailable: Bool { self == .memory }

    /// Whether the backend keeps files in `--cache-dir`.
    var usesDirectory: Bool { self != .memory }
}
