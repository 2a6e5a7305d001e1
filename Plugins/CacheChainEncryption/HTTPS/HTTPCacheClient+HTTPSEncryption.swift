public import CacheChain

extension HTTPCacheClient.Configuration {
    /// Switches on the encrypted HTTPS plugin: HTTPS responses (or all, with
    /// ``HTTPSEncryptionMode/encryptEverything``) are sealed into `encrypted`, the rest stays in the current
    /// `storage`.
    ///
    /// ```swift
    /// var configuration = HTTPCacheClient.Configuration(storage: try DiskStorage(directory: cacheDirectory))
    /// configuration.encryptHTTPS(with: EncryptedStorage(wrapping: try DiskStorage(directory: httpsDirectory),
    ///                                                   keys: try KeyFileProvider(path: keyPath)))
    /// ```
    ///
    /// The configuration's `storage` becomes the ``HTTPSRoutedStorage`` of both backends (so the
    /// management API — removals, purges, usage — covers both) and an ``HTTPSEncryptionInterceptor`` is
    /// appended to `outerInterceptors` (inside any interceptor already there, outside the cache).
    /// - Parameters:
    ///   - encrypted: The encrypted backend; its wrapped backend must be dedicated to it (not the plain one).
    ///   - mode: Which responses are encrypted.
    public mutating func encryptHTTPS(with encrypted: EncryptedStorage, mode: HTTPSEncryptionMode = .encryptHTTPS) {
        install(HTTPSEncryptionInterceptor(plain: storage, encrypted: encrypted, mode: mode))
    }

    /// Keeps HTTPS responses in memory only, as Apple advises, without encryption: with a `TieredStorage`
    /// they stay in its memory tier; a disk-only backend does not store them.
    public mutating func keepHTTPSInMemoryOnly() {
        install(HTTPSEncryptionInterceptor(keepingHTTPSInMemoryOnly: storage))
    }

    private mutating func install(_ interceptor: HTTPSEncryptionInterceptor) {
        storage = interceptor.storage
        outerInterceptors.append(interceptor)
    }
}
