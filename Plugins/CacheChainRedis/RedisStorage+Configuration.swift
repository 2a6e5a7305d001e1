public import Foundation

extension RedisStorage {
    /// Where Redis listens.
    public enum Endpoint: Sendable, Hashable, CustomStringConvertible {
        /// A TCP host and port, e.g. `.tcp(host: "127.0.0.1", port: 6379)`.
        case tcp(host: String, port: Int)
        /// A unix domain socket path.
        case unixSocket(String)

        /// `host:port` or the socket path.
        public var description: String {
            switch self {
            case .tcp(let host, let port): "\(host):\(port)"
            case .unixSocket(let path): path
            }
        }
    }

    /// Settings of a ``RedisStorage``.
    public struct Configuration: Sendable {
        /// Where Redis listens.
        public var endpoint: Endpoint
        /// The database number (`SELECT`); 0 by default.
        public var database: Int
        /// The password sent with `AUTH`, if the server requires one.
        public var password: String?
        /// The prefix of every key this cache writes, so several caches can share one Redis safely;
        /// `removeAll` and purges touch only keys under it.
        public var namespace: String
        /// How long to wait for a connection.
        public var connectTimeout: Duration
        /// How long to wait for one command's reply.
        public var commandTimeout: Duration
        /// The number of connections (each on its own serial queue).
        public var connectionCount: Int
        /// When to stop calling an unreachable, refusing or hung Redis, and how often to try again.
        public var circuitBreaker: CircuitBreaker
        /// The largest body stored; larger responses are not stored (a `notStored`-style miss).
        public var maximumEntrySize: Int
        /// Bodies up to this size travel inside the entry's hash field in one command; larger ones are
        /// written in chunks to their own key and read back in chunks, so no second copy is held.
        public var inlineBodyLimit: Int
        /// How long an entry is kept after it stops being usable by `stale-while-revalidate` and
        /// `stale-if-error`, when it has a validator (`ETag`/`Last-Modified`) and can still be revalidated
        /// with a cheap 304, or be served by `returnCacheDataElseLoad`.
        public var staleRetention: Duration
        /// Where bodies read in chunks are spooled.
        public var spoolDirectory: String

        /// Creates a configuration.
        /// - Parameters:
        ///   - endpoint: Where Redis listens; `127.0.0.1:6379` by default.
        ///   - database: The database number; 0.
        ///   - password: The `AUTH` password; none.
        ///   - namespace: The key prefix; `cachechain`.
        ///   - connectTimeout: Connection timeout; 1 s.
        ///   - commandTimeout: Per-command timeout; 2 s.
        ///   - connectionCount: Pool size; 4.
        ///   - circuitBreaker: Open after 1 connection-level failure, probe again every 5 s.
        ///   - maximumEntrySize: Largest body stored; 256 MiB.
        ///   - inlineBodyLimit: Largest body stored inline; 256 KiB.
        ///   - staleRetention: Extra retention for revalidatable entries; 1 day.
        ///   - spoolDirectory: Spool for large bodies read back (unnamed files, see `BodyFileWriter`); the
        ///     temporary directory.
        public init(
            endpoint: Endpoint = .tcp(host: "127.0.0.1", port: 6379),
            database: Int = 0,
            password: String? = nil,
            namespace: String = "cachechain",
            connectTimeout: Duration = .seconds(1),
            commandTimeout: Duration = .seconds(2),
            connectionCount: Int = 4,
            circuitBreaker: CircuitBreaker = CircuitBreaker(),
            maximumEntrySize: Int = 256 << 20,
            inlineBodyLimit: Int = 256 << 10,
            staleRetention: Duration = .seconds(86_400),
            spoolDirectory: String = NSTemporaryDirectory()
        ) {
            self.endpoint = endpoint
            self.database = database
            self.password = password
            self.namespace = namespace
            self.connectTimeout = connectTimeout
            self.commandTimeout = commandTimeout
            self.connectionCount = connectionCount
            self.circuitBreaker = circuitBreaker
            self.maximumEntrySize = maximumEntrySize
            self.inlineBodyLimit = inlineBodyLimit
            self.staleRetention = staleRetention
            self.spoolDirectory = spoolDirectory
        }
    }
}
