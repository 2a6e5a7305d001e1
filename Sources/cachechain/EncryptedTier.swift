import ArgumentParser
import CacheChain
import CacheChainEncryption
import Foundation

/// The encrypted HTTPS tier of a cache directory, `<dir>/encrypted`, and the CLI's safeguards around it:
/// no command writes HTTPS responses in clear next to it, no key is created by accident, and a key file
/// that does not hold the tier's key is refused by name instead of showing as silent misses.
///
/// The tier records the ID of the key it is sealed with in `<dir>/encrypted/cachechain-key-id` (mode 0600;
/// a key ID is not secret: every entry carries it in clear). Commands that store record the current key's
/// ID; every command checks that its key file still holds the recorded key.
struct EncryptedTier {
    /// The cache directory the tier belongs to.
    let cacheDirectory: String

    /// `<dir>/encrypted`.
    var directory: String { cacheDirectory + "/encrypted" }

    /// The file recording the ID of the key the tier is sealed with.
    var keyIDPath: String { directory + "/cachechain-key-id" }

    /// Whether the directory holds an encrypted tier (its disk format file exists).
    var exists: Bool { FileManager.default.fileExists(atPath: directory + "/cachechain-format") }

    /// The recorded key ID, when there is one.
    /// - Throws: `CacheChainError` (`invalid-configuration`) when the record is damaged (not a visible-ASCII ID,
    ///   e.g. after a flipped bit) or is a directory, naming the file and how to recover, its bytes escaped.
    func recordedKeyID() throws -> String? {
        if (try? FileManager.default.attributesOfItem(atPath: keyIDPath)[.type] as? FileAttributeType) == .typeDirectory {
            throw CacheChainError(
                .invalidConfiguration,
                "\(keyIDPath) is a directory, where the ID of the encrypted tier's key should be recorded: remove it, and "
                    + "the next get or batch with the tier's --key-file records the ID again"
            )
        }
        guard let data = FileManager.default.contents(atPath: keyIDPath) else { return nil }
        let bytes = Array(data)
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        let trimmed = Array(bytes.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
        if trimmed.isEmpty { return nil }
        guard PrintableText.isVisibleASCII(trimmed) else {
            throw CacheChainError(
                .invalidConfiguration,
                "\(keyIDPath) is damaged: it holds '\(PrintableText.escaped(trimmed))' where the ID of the encrypted tier's "
                    + "key should be. If your --key-file holds the key this cache was sealed with, delete \(keyIDPath): the next "
                    + "get or batch records its ID again (entries sealed with another key are then misses); otherwise remove "
                    + "\(directory) to start the encrypted tier over"
            )
        }
        return String(decoding: trimmed, as: UTF8.self)
    }

    /// Refuses, before anything is opened, an invocation that would store HTTPS responses in clear in a
    /// directory whose HTTPS responses are encrypted.
    /// - Parameter remedy: What to pass instead (the command's own option names).
    /// - Throws: `ValidationError` (exit 64) naming the tier and the remedy.
    func refusePlaintextWrites(remedy: String) throws {
        guard exists else { return }
        throw ValidationError(
            "\(cacheDirectory) keeps HTTPS responses encrypted in \(directory); without its key this command would "
                + "store them in clear. Pass \(remedy), or use another cache directory"
        )
    }

    /// Checks, before anything is opened, that a key file exists or may be created.
    /// - Parameters:
    ///   - keyFile: The `--key-file` path.
    ///   - createKey: Whether `--create-key` was given.
    /// - Throws: `ValidationError` (exit 64) when the file is missing and may not be created, or when a new
    ///   key could not read the entries already sealed in the tier.
    func validate(keyFile: String, createKey: Bool) throws {
        guard !FileManager.default.fileExists(atPath: keyFile) else { return }
        guard createKey else {
            throw ValidationError(
                "--key-file \(keyFile) does not exist. Give the key file this cache was created with, or pass "
                    + "--create-key to start a new key (mode 0600)"
            )
        }
        if let recorded = try recordedKeyID() {
            throw ValidationError(
                "--create-key: \(directory) is sealed with key ID \(recorded), which a new key cannot open. Give the "
                    + "key file that holds key \(recorded), or use another cache directory"
            )
        }
    }

    /// Opens the key file for this tier and checks it holds the tier's key.
    /// - Parameters:
    ///   - keyFile: The `--key-file` path.
    ///   - createKey: Whether a missing file may be created (`--create-key`).
    ///   - records: Whether to record the current key's ID (commands that store); read-only commands never
    ///     write.
    /// - Returns: The key provider.
    /// - Throws: `CacheChainError` (`invalid-configuration`) when the file is missing, unusable, or holds
    ///   no key with the tier's recorded ID (the message names that ID).
    func openKeys(keyFile: String, createKey: Bool, records: Bool) throws -> KeyFileProvider {
        let keys = try KeyFileProvider(path: keyFile, createIfMissing: createKey)
        let recorded = try recordedKeyID()
        if let recorded, keys.key(withID: recorded) == nil {
            let held = keys.availableKeys.map(\.id).joined(separator: ", ")
            throw CacheChainError(
                .invalidConfiguration,
                "the encrypted cache in \(directory) is sealed with key ID \(recorded) (recorded in \(keyIDPath)), but "
                    + "\(keyFile) holds key ID \(held): give the key file that holds key \(recorded) (or remove \(directory) to "
                    + "start over; if you are sure \(keyFile) is this cache's key and the record is damaged, delete \(keyIDPath))"
            )
        }
        if records, let current = keys.currentKey, current.id != recorded {
            try record(current.id)
        }
        return keys
    }

    /// Writes the key ID file (mode 0600) atomically.
    private func record(_ keyID: String) throws {
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
        )
        let temporary = keyIDPath + ".tmp-\(ProcessInfo.processInfo.processIdentifier)"
        let contents = Data((keyID + "\n").utf8)
        guard FileManager.default.createFile(atPath: temporary, contents: contents, attributes: [.posixPermissions: 0o600]),
            rename(temporary, keyIDPath) == 0
        else {
            try? FileManager.default.removeItem(atPath: temporary)
            throw CacheChainError(.storageFailed, "cannot write \(keyIDPath): \(String(cString: strerror(errno)))")
        }
    }
}
