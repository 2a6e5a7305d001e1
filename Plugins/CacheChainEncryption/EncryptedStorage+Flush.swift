import CacheChainCore

extension EncryptedStorage {
    /// Flushes the wrapped backend (nothing of its own is pending: every entry is sealed when stored).
    /// - Throws: The wrapped backend's error.
    public func flushPendingWrites() async throws {
        try await wrapped.flushPendingWrites()
    }
}
