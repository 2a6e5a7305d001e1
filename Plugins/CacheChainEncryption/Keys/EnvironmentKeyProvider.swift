public import CacheChainCore
public import Foundation

/// Keys read once from an environment variable: for containers and services whose secrets arrive through
/// the environment.
///
/// The variable holds one or more keys separated by commas, the current key first; each key is 64 hex
/// digits or the standard base64 of 32 bytes (44 characters with padding), optionally prefixed by an ID and
/// a colon (`2025-06:BASE64`); without an ID, the ID is derived from the key. To rotate, put the new key
/// first and keep the old one after it until ``EncryptedStorage/reencryptEntries()`` has run:
///
/// ```sh
/// CACHECHAIN_ENCRYPTION_KEY="$(openssl rand -base64 32),$OLD_KEY"
/// ```
public struct EnvironmentKeyProvider: KeyProvider {
    /// The default variable name, `CACHECHAIN_ENCRYPTION_KEY`.
    public static let defaultVariable = "CACHECHAIN_ENCRYPTION_KEY"

    /// The variable's name.
    public let variable: String
    /// Every key in the variable, current first.
    public let availableKeys: [EncryptionKey]

    /// Reads the keys from a variable.
    /// - Parameters:
    ///   - variable: The variable's name.
    ///   - environment: The environment to read; the process's by default.
    /// - Throws: `CacheChainError.Code.invalidConfiguration` naming the variable when it is missing,
    ///   empty or holds something other than keys (the value itself is never printed).
    public init(
        variable: String = EnvironmentKeyProvider.defaultVariable,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(CacheChainError) {
        self.variable = variable
        guard let value = environment[variable], !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw CacheChainError(
                .invalidConfiguration,
                "the environment variable \(variable) holds no encryption key (set it to the base64 of 32 random bytes: `openssl rand -base64 32`)"
            )
        }
        var keys: [EncryptionKey] = []
        for (position, item) in value.split(separator: ",").enumerated() {
            let parts = item.split(separator: ":", maxSplits: 1)
            do throws(CacheChainError) {
                if parts.count == 2 {
                    keys.append(try EncryptionKey(encoded: parts[1], id: String(parts[0]).trimmingCharacters(in: .whitespaces)))
                } else {
                    keys.append(try EncryptionKey(encoded: item))
                }
            } catch {
                throw CacheChainError(.invalidConfiguration, "key \(position + 1) in the environment variable \(variable) is invalid: \(error.message)")
            }
        }
        availableKeys = keys
    }

    /// The first key in the variable.
    public var currentKey: EncryptionKey? { availableKeys.first }
}
