public import CacheChain
import CacheChainCurl
public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif
import HTTPTypes
import HTTPTypesFoundation
import Logging

/// A `URLCache` backed by a CacheChain client's storage: Apple's URLCache API over CacheChain's memory, disk
/// (or any) backend.
///
/// ```swift
/// import CacheChain
/// import CacheChainFoundation
/// import Foundation
/// import FoundationNetworking
///
/// let cache = CacheChainURLCache(memoryCapacity: 4 << 20, diskCapacity: 100 << 20, directory: nil)
/// URLCache.shared = cache
/// let session = URLSession(configuration: .default.usingCacheChain(cache.client))
/// ```
///
/// The session above and `URLCache.shared` read and write the same entries. Each member behaves as Apple
/// documents it:
///
/// | Member | Behaviour |
/// |---|---|
/// | ``init(memoryCapacity:diskCapacity:directory:)`` | memory tier of `memoryCapacity` bytes; disk tier of `diskCapacity` bytes in `directory` (the default cache directory when `nil`; no disk tier when `diskCapacity` is 0) |
/// | ``cachedResponse(for:)`` | the stored response for the request (its `Vary` variant), fresh or not; `nil` when none |
/// | ``storeCachedResponse(_:for:)-(CachedURLResponse,URLRequest)`` | stores as given, no HTTP rule applied; `.allowedInMemoryOnly` stays out of the disk tier, `.notAllowed` is not stored |
/// | ``removeCachedResponse(for:)-(URLRequest)``, ``removeCachedResponses(since:)``, ``removeAllCachedResponses()`` | remove from every tier |
/// | ``memoryCapacity``, ``diskCapacity`` | the tiers' capacities; lowering one evicts least recently used entries to fit |
/// | ``currentMemoryUsage``, ``currentDiskUsage`` | the bytes each tier holds (exact) |
///
/// `userInfo` whose values are property-list types survives a store and a restart. The synchronous members
/// block the calling thread until the storage answers (as Foundation's own do while they read files); from
/// async code, the client's async management API does the same without blocking.
public final class CacheChainURLCache: URLCache, @unchecked Sendable {  // invariant: every stored property is an immutable Sendable value
    /// The client whose storage holds the entries; `URLSessionConfiguration.usingCacheChain(_:)` with it
    /// gives a session that reads and writes them.
    public let client: HTTPCacheClient
    /// Why the disk tier could not be opened by ``init(memoryCapacity:diskCapacity:directory:)`` (the cache then
    /// keeps responses in memory only), or `nil`.
    public let diskError: CacheChainError?
    private let memoryTier: MemoryStorage?
    private let diskTier: DiskStorage?

    /// Creates a cache with a memory tier and a disk tier, as `URLCache(memoryCapacity:diskCapacity:directory:)`.
    ///
    /// Requests answered through ``client`` use a `CurlTransport` with its defaults.
    /// - Parameters:
    ///   - memoryCapacity: The memory tier's capacity in bytes.
    ///   - diskCapacity: The disk tier's capacity in bytes; 0 for no disk tier.
    ///   - directory: The disk tier's directory; `HTTPCacheClient.defaultCacheDirectory` when `nil`. A directory
    ///     that cannot be used leaves the cache in memory only, with the reason in ``diskError`` (and logged).
    public init(memoryCapacity: Int, diskCapacity: Int, directory: URL? = nil) {
        let memory = MemoryStorage(capacity: memoryCapacity)
        var disk: DiskStorage?
        var failure: CacheChainError?
        if diskCapacity > 0 {
            let path = (directory ?? HTTPCacheClient.defaultCacheDirectory).path
            do {
                disk = try DiskStorage(directory: path, capacity: diskCapacity)
            } catch {
                failure = error
                Logger(label: "cachechain.foundation").error(
                    "CacheChainURLCache keeps responses in memory only: its disk tier cannot be opened",
                    metadata: ["directory": "\(path)", "error": "\(error)"]
                )
            }
        }
        let storage: any CacheStorage = disk.map { TieredStorage(memory: memory, disk: $0) } ?? memory
        self.client = HTTPCacheClient(transport: CurlTransport(), configuration: .init(storage: storage))
        self.diskError = failure
        self.memoryTier = memory
        self.diskTier = disk
        super.init(memoryCapacity: 0, diskCapacity: 0, diskPath: Self.inertFoundationPath)
    }

    /// Creates a cache over the storage of an existing client, e.g. `HTTPCacheClient.shared` or the client of
    /// a session configured with `URLSessionConfiguration.usingCacheChain(_:)`.
    ///
    /// The capacity setters act on a `MemoryStorage`, a `DiskStorage` or the two tiers of a
    /// `TieredStorage` made of them; on other backends (Redis, encrypted) capacities are the backend's own and
    /// setting them has no effect.
    /// - Parameter client: The client.
    public init(client: HTTPCacheClient) {
        self.client = client
        self.diskError = nil
        let storage = client.configuration.storage
        let tiered = storage as? TieredStorage
        self.memoryTier = (tiered?.memory ?? storage) as? MemoryStorage
        self.diskTier = (tiered?.disk ?? storage) as? DiskStorage
        super.init(memoryCapacity: 0, diskCapacity: 0, diskPath: Self.inertFoundationPath)
    }

    /// A path Foundation's `URLCache` cannot make a directory at, so the superclass never touches the disk (every
    /// member it would use is overridden).
    private static let inertFoundationPath = "/dev/null"

    /// The memory tier's capacity in bytes; lowering it evicts least recently used entries to fit.
    public override var memoryCapacity: Int {
        get { BlockingCall.run { [client] in await client.memoryCapacity } }
        set {
            guard let memoryTier else { return }
            BlockingCall.run { await memoryTier.setCapacity(newValue) }
        }
    }

    /// The disk tier's capacity in bytes (0 without a disk tier); lowering it evicts least recently used entries
    /// to fit. A cache without a disk tier does not gain one.
    public override var diskCapacity: Int {
        get { BlockingCall.run { [client] in await client.diskCapacity } }
        set {
            guard let diskTier else { return }
            do {
                try BlockingCall.run { try await diskTier.setCapacity(newValue) }
            } catch {
                client.configuration.logger.warning("CacheChainURLCache could not apply the new disk capacity", metadata: ["error": "\(error)"])
            }
        }
    }

    /// The bytes the memory tier holds.
    public override var currentMemoryUsage: Int {
        BlockingCall.run { [client] in await client.currentMemoryUsage }
    }

    /// The bytes the disk tier holds (0 without one).
    public override var currentDiskUsage: Int {
        BlockingCall.run { [client] in await client.currentDiskUsage }
    }

    /// The stored response for a request, whatever its freshness: `URLCache.cachedResponse(for:)`.
    ///
    /// The request's URL, method and fields select the entry and its `Vary` variant.
    /// - Parameter request: The request.
    /// - Returns: The response with its data, storage policy and `userInfo`, or `nil` when none is stored (or the
    ///   storage cannot be read; the failure is logged).
    public override func cachedResponse(for request: URLRequest) -> CachedURLResponse? {
        guard let head = request.httpRequest, let url = request.url else { return nil }
        let cached: CachedResponse? = storageCall("read") { client in try await client.cachedResponse(for: head) } ?? nil
        return cached?.cachedURLResponse(for: url)
    }

    /// Stores a response for a request, as given: `URLCache.storeCachedResponse(_:for:)`.
    ///
    /// No HTTP rule is applied. `.allowedInMemoryOnly` keeps it out of the disk tier and `.notAllowed` stores
    /// nothing. Its `userInfo` is kept when its values are property-list types. The response must be an
    /// `HTTPURLResponse`.
    /// - Parameters:
    ///   - cachedResponse: The response to store.
    ///   - request: The request it answers.
    public override func storeCachedResponse(_ cachedResponse: CachedURLResponse, for request: URLRequest) {
        guard let head = request.httpRequest,
            let cached = CachedResponse(cachedResponse, requestTime: client.configuration.clock.now())
        else { return }
        storageCall("store") { client in try await client.storeCachedResponse(cached, for: head) }
    }

    /// Removes the stored response for a request (every variant of its key): `URLCache.removeCachedResponse(for:)`.
    /// - Parameter request: The request.
    public override func removeCachedResponse(for request: URLRequest) {
        guard let head = request.httpRequest else { return }
        storageCall("remove") { client in try await client.removeCachedResponse(for: head) }
    }

    /// Removes every response stored at or after a date: `URLCache.removeCachedResponses(since:)`.
    /// - Parameter date: The earliest storage date to remove.
    public override func removeCachedResponses(since date: Date) {
        storageCall("remove") { client in try await client.removeCachedResponses(since: date) }
    }

    /// Removes every stored response: `URLCache.removeAllCachedResponses()`.
    public override func removeAllCachedResponses() {
        storageCall("remove") { client in try await client.removeAllCachedResponses() }
    }

    /// Stores a response for a data task's current request: `URLCache.storeCachedResponse(_:for:)`.
    /// - Parameters:
    ///   - cachedResponse: The response to store.
    ///   - dataTask: The task whose `currentRequest` it answers.
    public override func storeCachedResponse(_ cachedResponse: CachedURLResponse, for dataTask: URLSessionDataTask) {
        guard let request = dataTask.currentRequest else { return }
        storeCachedResponse(cachedResponse, for: request)
    }

    /// Passes the stored response for a data task's current request to a completion handler, on a background
    /// queue: `URLCache.getCachedResponse(for:completionHandler:)`.
    ///
    /// FoundationNetworking calls this before every data task of a session that has a `urlCache`. For a task of
    /// a session whose requests ``CacheChainURLProtocol`` answers, the answer is `nil` at once: the protocol
    /// makes its own lookup, under the request's cache policy, so a lookup here would only be repeated. Ask
    /// ``cachedResponse(for:)`` with the task's `currentRequest` for the stored response of such a task.
    /// - Parameters:
    ///   - dataTask: The task.
    ///   - completionHandler: Receives the response, or `nil`.
    public override func getCachedResponse(
        for dataTask: URLSessionDataTask,
        completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void
    ) {
        guard let request = dataTask.currentRequest, let head = request.httpRequest, let url = request.url,
            !CacheChainURLProtocol.answers(request, of: TaskSurroundings(of: dataTask).session)
        else { return completionHandler(nil) }
        let client = client
        Task {
            let cached = try? await client.cachedResponse(for: head)
            // Making the Foundation value reads the body, which may be a file: not on Swift's cooperative pool.
            DispatchQueue.global().async { completionHandler(cached?.cachedURLResponse(for: url)) }
        }
    }

    /// Removes the stored response for a data task's current request: `URLCache.removeCachedResponse(for:)`.
    /// - Parameter dataTask: The task.
    public override func removeCachedResponse(for dataTask: URLSessionDataTask) {
        guard let request = dataTask.currentRequest else { return }
        removeCachedResponse(for: request)
    }

    /// Runs `work` on ``client`` with `BlockingCall`; a failure is logged as `operation` and gives `nil`.
    @discardableResult
    private func storageCall<Value: Sendable>(
        _ operation: String,
        _ work: @escaping @Sendable (HTTPCacheClient) async throws -> Value
    ) -> Value? {
        let client = client
        do {
            return try BlockingCall.run { try await work(client) }
        } catch {
            client.configuration.logger.warning(
                "CacheChainURLCache: the storage failed; nothing was changed",
                metadata: ["operation": "\(operation)", "error": "\(error)"]
            )
            return nil
        }
    }
}
