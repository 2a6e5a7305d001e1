internal import CHiredis
import CacheChainCore

/// One blocking hiredis connection. Never used on Swift's cooperative pool: only from its
/// ``RedisConnectionPool`` slot's serial dispatch queue.
final class RedisConnection {
    private let context: UnsafeMutablePointer<redisContext>
    let endpointDescription: String

    /// Takes ownership of a connected context: from here on ``deinit`` frees it, and nothing else may.
    private init(context: UnsafeMutablePointer<redisContext>, endpointDescription: String) {
        self.context = context
        self.endpointDescription = endpointDescription
    }

    /// Connects, authenticates and selects the database.
    ///
    /// The hiredis context is freed exactly once: here when the connection itself fails, otherwise by the
    /// returned connection's `deinit` (also when `AUTH` or `SELECT` fails and the half-made connection is
    /// released).
    /// - Parameter configuration: The endpoint, timeouts, password and database.
    /// - Returns: A connection ready for commands.
    /// - Throws: ``CacheChainError`` with code `storage-failed` naming the endpoint and hiredis' error, or
    ///   `invalid-configuration` when Redis refuses `AUTH` or `SELECT`.
    static func connect(configuration: RedisStorage.Configuration) throws(CacheChainError) -> RedisConnection {
        let endpointDescription = configuration.endpoint.description
        let connectMilliseconds = milliseconds(configuration.connectTimeout)
        let connected: UnsafeMutablePointer<redisContext>?
        switch configuration.endpoint {
        case .tcp(let host, let port): connected = cachechain_redis_connect_tcp(host, Int32(port), connectMilliseconds)
        case .unixSocket(let path): connected = cachechain_redis_connect_unix(path, connectMilliseconds)
        }
        guard let connected else {
            throw CacheChainError(.storageFailed, "could not allocate a Redis connection to \(endpointDescription)")
        }
        if cachechain_redis_error_code(connected) != 0 {
            let text = String(cString: cachechain_redis_error_text(connected))
            redisFree(connected)  // not owned by a connection yet
            throw CacheChainError(
                .storageFailed,
                "Redis at \(endpointDescription) is unreachable: \(text); check that redis-server runs and the endpoint is right"
            )
        }
        let connection = RedisConnection(context: connected, endpointDescription: endpointDescription)
        _ = cachechain_redis_set_timeout(connected, milliseconds(configuration.commandTimeout))
        if let password = configuration.password {
            try connection.expectOK(connection.run([Array("AUTH".utf8), Array(password.utf8)]), "AUTH (check the password)")
        }
        if configuration.database != 0 {
            let database = String(configuration.database)
            try connection.expectOK(connection.run([Array("SELECT".utf8), Array(database.utf8)]), "SELECT \(database)")
        }
        return connection
    }

    deinit {
        redisFree(context)
    }

    /// Whether the connection failed and must be replaced.
    var isBroken: Bool { cachechain_redis_error_code(context) != 0 }

    /// Runs one command (binary-safe arguments) and returns its reply; a Redis error reply is returned,
    /// not thrown.
    /// - Throws: ``CacheChainError`` when the connection fails (I/O error, timeout).
    func run(_ arguments: [[UInt8]]) throws(CacheChainError) -> RedisReply {
        try run(arguments, appending: nil)
    }

    /// Runs one command whose last argument is raw memory (a chunk of a body), without copying it.
    func run(_ arguments: [[UInt8]], appending raw: UnsafeRawBufferPointer?) throws(CacheChainError) -> RedisReply {
        let reply = withArgumentPointers(arguments, appending: raw) { count, pointers, lengths in
            cachechain_redis_command(context, count, pointers, lengths)
        }
        guard let reply else {
            let text = String(cString: cachechain_redis_error_text(context))
            throw CacheChainError(.storageFailed, "Redis at \(endpointDescription) failed: \(text.isEmpty ? "no reply" : text)")
        }
        defer { cachechain_redis_free_reply(reply) }
        return RedisReply(reply)
    }

    private func expectOK(_ reply: RedisReply, _ what: String) throws(CacheChainError) {
        if case .error(let text) = reply {
            throw CacheChainError(.invalidConfiguration, "Redis at \(endpointDescription) refused \(what): \(text)")
        }
    }

    /// Calls `body` with C pointers to every argument (valid only during the call). The arguments are
    /// copied into one buffer (they are small: names, keys, metadata); `raw` is passed as is.
    private func withArgumentPointers<Result>(
        _ arguments: [[UInt8]],
        appending raw: UnsafeRawBufferPointer?,
        _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int>?) -> Result
    ) -> Result {
        var storage = [UInt8]()
        storage.reserveCapacity(arguments.reduce(0) { $0 + $1.count })
        var offsets: [Int] = []
        for argument in arguments {
            offsets.append(storage.count)
            storage.append(contentsOf: argument)
        }
        storage.append(0)  // never empty, so the buffer always has an address (the byte belongs to no argument)
        var lengths = arguments.map(\.count)
        if let raw { lengths.append(raw.count) }
        return storage.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return body(0, nil, nil) }
            var pointers: [UnsafePointer<CChar>?] = offsets.map { (base + $0).assumingMemoryBound(to: CChar.self) }
            if let raw { pointers.append(raw.baseAddress?.assumingMemoryBound(to: CChar.self) ?? base.assumingMemoryBound(to: CChar.self)) }
            return pointers.withUnsafeMutableBufferPointer { pointerBuffer in
                lengths.withUnsafeBufferPointer { lengthBuffer in
                    body(Int32(pointerBuffer.count), pointerBuffer.baseAddress, lengthBuffer.baseAddress)
                }
            }
        }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}
