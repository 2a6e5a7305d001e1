
/// Where the HTTPS-encryption plugin sends the responses of one URL scheme.
public enum HTTPSStorageRoute: Sendable, Hashable {
    /// The plain backend, stored as the storage decision says.
    case plain
    /// The plain backend, but never beyond memory (`.allowedInMemoryOnly`, as in Apple's Listing 1).
    case plainInMemoryOnly
    /// The encrypted backend.
    case encrypted
}

/// Which responses the HTTPS-encryption plugin encrypts, and how HTTPS is kept when it does not.
public enum HTTPSEncryptionMode: Sendable, Hashable {
    /// `https` responses go to the encrypted backend, `http` ones to the plain backend (the default).
    case encryptHTTPS
    /// Every response goes to the encrypted backend.
    case encryptEverything
    /// Nothing is encrypted: `https` responses are kept in memory only (Apple's advice), `http` ones are
    /// stored in the plain backend as usual. Needs no key.
    case httpsInMemoryOnly

    /// The route of a URL scheme under this mode.
    /// - Parameter scheme: The request's scheme (`https`, `http`…), compared case-insensitively.
    /// - Returns: Where its responses are looked up and stored.
    public func route(forScheme scheme: String) -> HTTPSStorageRoute {
        let isHTTPS = scheme.lowercased() == "https"
        switch self {
        case .encryptHTTPS: return isHTTPS ? .encrypted : .plain
        case .encryptEverything: return .encrypted
        case .httpsInMemoryOnly: return isHTTPS ? .plainInMemoryOnly : .plain
        }
    }
}
