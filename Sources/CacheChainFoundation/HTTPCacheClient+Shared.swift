public import CacheChain
public import CacheChainCurl
public import Foundation
import Logging

/// The process-wide default client, created on first use.
private let sharedClient = LockedValue<HTTPCacheClient?>(nil)

extension HTTPCacheClient {
    /// The process-wide default client: what `URLCache.shared` is to Apple's sessions.
    ///
    /// Created on first use with ``makeDefault(directory:)``: a `TieredStorage` of a 4 MiB `MemoryStorage`
    /// over a 20 MiB `DiskStorage` in ``defaultCacheDirectory`` (the capacities of Foundation's
    /// `URLCache.shared`), and a `CurlTransport` with its defaults. Replace it before use to change it:
    ///
    /// ```swift
    /// HTTPCacheClient.shared = HTTPCacheClient(transport: CurlTransport(), configuration: .init(storage: MemoryStorage(capacity: 64 << 20)))
    /// ```
    ///
    /// `CacheChainURLProtocol` answers with it the sessions whose `urlCache` is not a ``CacheChainURLCache``
    /// (for example `URLSession.shared` once the protocol is registered with `URLProtocol.registerClass`).
    /// Reading and replacing it are thread-safe.
    public static var shared: HTTPCacheClient {
        get {
            sharedClient.withLock { client in
                if let client { return client }
                let made = makeDefault()
                client = made
                return made
            }
        }
        set {
            sharedClient.withLock { $0 = newValue }
        }
    }

    /// The directory of the default client's disk tier: `cachechain/<process name>` in the user's cache
    /// directory (`$XDG_CACHE_HOME`, else `~/.cache`), as Foundation puts `URLCache.shared` under
    /// `org.swift.foundation.URLCache/<process name>` there.
    public static var defaultCacheDirectory: URL {
        let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
        let name = ProcessInfo.processInfo.processName.map { "/\\:".contains($0) ? "_" : $0 }
        return caches.appendingPathComponent("cachechain", isDirectory: true)
            .appendingPathComponent(String(name), isDirectory: true)
    }

    /// Creates a client like the default ``shared`` one: 4 MiB of memory over 20 MiB of disk.
    ///
    /// When the disk tier cannot be opened (a read-only home, a directory of a newer format) the client keeps its
    /// responses in memory only and logs why at `error` level under the label `cachechain.foundation`.
    /// - Parameter directory: The disk tier's directory; ``defaultCacheDirectory`` when `nil`.
    /// - Returns: The client.
    public static func makeDefault(directory: URL? = nil) -> HTTPCacheClient {
        let memory = MemoryStorage(capacity: 4 << 20)
        let path = (directory ?? defaultCacheDirectory).path
        let storage: any CacheStorage
        do {
            storage = TieredStorage(memory: memory, disk: try DiskStorage(directory: path, capacity: 20 << 20))
        } catch {
            Logger(label: "cachechain.foundation").error(
                "the default HTTP cache keeps responses in memory only: its disk tier cannot be opened",
                metadata: ["directory": "\(path)", "error": "\(error)"]
            )
            storage = memory
        }
        return HTTPCacheClient(transport: CurlTransport(), configuration: .init(storage: storage))
    }

    /// A client that keeps everything in memory and writes nothing under any directory: the natural pair of
    /// `URLSessionConfiguration.ephemeral`.
    ///
    /// Its storage is a `MemoryStorage` and its `CurlTransport` keeps every body in memory (it never spools a
    /// large body to a temporary file), so nothing it fetches or stores reaches the disk, and everything is gone
    /// with the client. Each call creates a new, empty client:
    ///
    /// ```swift
    /// import CacheChain
    /// import CacheChainFoundation
    /// import FoundationNetworking
    ///
    /// let session = URLSession(configuration: .ephemeral.usingCacheChain(.ephemeral()))
    /// ```
    /// - Parameters:
    ///   - memoryCapacity: The memory tier's capacity; 4 MiB by default, as Foundation's ephemeral `URLCache`.
    ///   - transport: The transport's settings (TLS trust, timeouts…); its body limits are replaced so that no
    ///     body is spooled to disk.
    /// - Returns: The client.
    public static func ephemeral(
        memoryCapacity: Int = 4 << 20,
        transport: CurlTransport.Configuration = CurlTransport.Configuration()
    ) -> HTTPCacheClient {
        var settings = transport
        settings.inMemoryBodyLimit = settings.maximumBodySize
        return HTTPCacheClient(
            transport: CurlTransport(configuration: settings),
            configuration: .init(storage: MemoryStorage(capacity: memoryCapacity))
        )
    }
}
