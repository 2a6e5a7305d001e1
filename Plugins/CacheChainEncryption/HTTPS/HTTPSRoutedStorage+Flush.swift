import CacheChainCore

extension HTTPSRoutedStorage {
    /// Flushes the plain backend and the encrypted one.
    /// - Throws: The first backend's error; the other is flushed all the same.
    public func flushPendingWrites() async throws {
        var failure: (any Error)?
        do { try await plain.flushPendingWrites() } catch { failure = error }
        if let encrypted {
            do { try await encrypted.flushPendingWrites() } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
    }
}
