#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import CacheChainCore
public import CacheChainPolicy

extension DiskStorage {
    /// The name of the file in `v<format>/` that holds the directory's ``VaryDigestKey`` (32 bytes, mode 0600).
    static let varyDigestKeyFileName = "vary-digest-key"

    /// The directory's key for the digests of secret request fields named by `Vary`: made at random when
    /// the directory is created and kept in `v<format>/vary-digest-key` (mode 0600), so every process that
    /// opens the directory digests alike and finds the variants the others stored.
    /// - Parameter key: The primary key (unused: one key per directory).
    /// - Returns: The directory's key.
    public func varyDigestKey(for key: CacheKey) -> VaryDigestKey {
        directoryVaryDigestKey
    }

    /// Reads the directory's key, or creates it: written to a temporary file and linked into place, so of
    /// two processes creating a cache at once both end up with the one that was linked first. A damaged key
    /// file (not 32 bytes) is replaced by a new key; the entries digested under the old one then never match.
    /// - Parameter root: The `v<format>` folder.
    /// - Returns: The key.
    /// - Throws: `storage-failed` when no key file can be written.
    static func loadVaryDigestKey(_ root: String) throws(CacheChainError) -> VaryDigestKey {
        let path = "\(root)/\(varyDigestKeyFileName)"
        if let key = readVaryDigestKey(root) { return key }
        let fresh = VaryDigestKey.random()
        let temporary = "\(root)/tmp/\(POSIXFile.randomHex()).key"
        try POSIXFile.writeNew(fresh.bytes, to: temporary)
        defer { POSIXFile.remove(temporary) }
        if link(temporary, path) == 0 { return fresh }
        if errno == EEXIST, let key = readVaryDigestKey(root) { return key }
        try POSIXFile.move(temporary, path)
        return fresh
    }

    /// The key the directory's key file holds; `nil` when there is no readable key file of 32 bytes.
    /// - Parameter root: The `v<format>` folder.
    static func readVaryDigestKey(_ root: String) -> VaryDigestKey? {
        guard let bytes = POSIXFile.readWholeFile("\(root)/\(varyDigestKeyFileName)"), bytes.count == 32 else { return nil }
        return VaryDigestKey(bytes: bytes)
    }
}
