public import CacheChainCore
public import CacheChainPolicy
import HTTPTypes

/// The encrypted HTTPS disk plugin's face: sends `https` responses to an ``EncryptedStorage`` and `http`
/// ones to the plain backend, or keeps HTTPS in memory only, or encrypts everything.
///
/// Place it outside `CachePolicyInterceptor` (the client's `encryptHTTPS(with:)` does): it swaps the
/// context's storage for the backend of the request's scheme, so the lookup, the revalidation and the
/// store below it all use the same backend. Its ``storage`` combines both backends for the client's
/// management API.
///
/// ```swift
/// let https = EncryptedStorage(wrapping: try DiskStorage(directory: "/var/cache/app/https"),
///                              keys: try KeyFileProvider(path: "/etc/app/cache.key"))
/// let encryption = HTTPSEncryptionInterceptor(plain: plainStorage, encrypted: https)
/// ```
///
/// Without a current key (never created, or destroyed at logout), responses that would be encrypted are
/// not stored at all — they are served from the network, with an `encryption` reason in the trace — and
/// entries sealed with keys that are still provided keep opening. In
/// ``HTTPSEncryptionMode/httpsInMemoryOnly`` mode HTTPS responses are stored with `.allowedInMemoryOnly`.
public struct HTTPSEncryptionInterceptor: HTTPInterceptor {
    /// Both backends, routed by scheme: give it to the client as its storage.
    public let storage: HTTPSRoutedStorage

    /// Encrypts HTTPS (or every) response into `encrypted`; the rest goes to `plain`.
    /// - Parameters:
    ///   - plain: The backend for responses that are not encrypted.
    ///   - encrypted: The encrypted backend (its wrapped backend dedicated to it).
    ///   - mode: ``HTTPSEncryptionMode/encryptHTTPS`` (default) or ``HTTPSEncryptionMode/encryptEverything``.
    public init(plain: any CacheStorage, encrypted: EncryptedStorage, mode: HTTPSEncryptionMode = .encryptHTTPS) {
        storage = HTTPSRoutedStorage(plain: plain, encrypted: encrypted, mode: mode)
    }

    /// Keeps HTTPS responses in memory only (Apple's Listing 1), without encryption.
    /// - Parameter plain: The backend; HTTPS responses reach only its memory tier.
    public init(keepingHTTPSInMemoryOnly plain: any CacheStorage) {
        storage = HTTPSRoutedStorage(keepingHTTPSInMemoryOnly: plain)
    }

    /// Routes the request to its scheme's backend, then runs the rest of the chain.
    /// - Parameters:
    ///   - request: The request.
    ///   - context: Its context; inner interceptors see the routed storage.
    ///   - next: The rest of the chain.
    /// - Returns: The response, with an `encryption` reason when the route changed what is stored.
    /// - Throws: The chain's error.
    public func intercept(
        _ request: PipelineRequest,
        context: InterceptorContext,
        next: Next
    ) async throws -> PipelineResponse {
        var context = context
        var request = request
        let scheme = request.head.scheme ?? "http"
        // The routed storage's own rule picks the backend: routing happens in one place.
        context.storage = storage.backend(forScheme: scheme)
        var note: CacheReason?
        switch storage.mode.route(forScheme: scheme) {
        case .plain:
            break
        case .plainInMemoryOnly:
            request.storageLimit = request.storageLimit.capped(at: .allowedInMemoryOnly)
            note = CacheReason(.encryption, "\(scheme) responses are kept in memory only")
        case .encrypted:
            if storage.encrypted?.keyProvider.currentKey == nil {
                request.storageLimit = request.storageLimit.capped(at: .notAllowed)
                note = CacheReason(.encryption, "no current encryption key: the \(scheme) response is not stored")
            }
        }
        var response = try await next(request, context)
        if let note, response.cacheStatus == .miss || response.cacheStatus == .bypass {
            response.trace.append(note)
        }
        return response
    }
}

extension CacheReason.Code {
    /// The HTTPS-encryption plugin changed how a response is stored (memory only, or not at all for want
    /// of a key).
    public static let encryption = CacheReason.Code(rawValue: "encryption")
}
