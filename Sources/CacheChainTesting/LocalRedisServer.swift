import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real `redis-server` on 127.0.0.1 with an ephemeral port and its own temporary directory, for tests
/// and benchmarks of Redis-backed caches (no persistence). Needs Debian's `redis-server` package.
///
/// ```swift
/// let server = try await LocalRedisServer.start()
/// defer { server.stop() }
/// let storage = RedisStorage(configuration: .init(endpoint: .tcp(host: "127.0.0.1", port: server.port)))
/// ```
public final class LocalRedisServer: Sendable {
    /// The TCP port on 127.0.0.1.
    public let port: Int
    /// The server's working directory (its log is `redis.log` there).
    public let directory: String
    private let process: ChildProcess

    /// Starts a server and waits until it accepts connections.
    /// - Parameters:
    ///   - port: The port; a free ephemeral one by default (give the old port to restart a server).
    ///   - password: A password clients must send with `AUTH` (`requirepass`); none by default.
    /// - Returns: The running server.
    /// - Throws: ``LocalRedisServerError`` when `redis-server` is missing or does not start.
    public static func start(port: Int? = nil, password: String? = nil) async throws -> LocalRedisServer {
        guard let executable = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw LocalRedisServerError("redis-server is not installed; run ./scripts/install-deps.sh (apt-get install redis-server)")
        }
        let port = try port ?? freePort()
        let directory = NSTemporaryDirectory() + "cachechain-redis-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let process = try ChildProcess(executable, [
            "--bind", "127.0.0.1", "--port", String(port), "--dir", directory, "--save", "", "--appendonly", "no",
            "--daemonize", "no", "--logfile", directory + "/redis.log",
        ] + (password.map { ["--requirepass", $0] } ?? []))
        let server = LocalRedisServer(port: port, directory: directory, process: process)
        try await server.waitUntilAccepting()
        return server
    }

    private init(port: Int, directory: String, process: ChildProcess) {
        self.port = port
        self.directory = directory
        self.process = process
    }

    /// Kills the server (SIGKILL: like a crash) and waits for it to exit.
    public func kill() {
        guard process.isRunning else { return }
        process.send(SIGKILL)
        process.waitUntilExit()
    }

    /// Freezes the server (SIGSTOP): the kernel still accepts connections on its port, but no command is
    /// answered, like a hung Redis. ``resume()`` thaws it; ``kill()`` and ``stop()`` work on a frozen server.
    public func pause() {
        process.send(SIGSTOP)
    }

    /// Thaws a server frozen by ``pause()`` (SIGCONT).
    public func resume() {
        process.send(SIGCONT)
    }

    /// Stops the server and removes its directory.
    public func stop() {
        kill()
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func waitUntilAccepting() async throws {
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        while ContinuousClock.now < deadline {
            if Self.canConnect(port: port) { return }
            guard process.isRunning else { throw LocalRedisServerError("redis-server exited at start (see \(directory)/redis.log)") }
            // Poll gently: a busy loop here starves redis-server itself on a loaded 2-core machine.
            try await Task.sleep(for: .milliseconds(10))
        }
        throw LocalRedisServerError("redis-server did not accept connections on port \(port)")
    }

    private static func canConnect(port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// A port the kernel considers free right now.
    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw LocalRedisServerError("socket() failed") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw LocalRedisServerError("bind() failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Why a ``LocalRedisServer`` could not start.
public struct LocalRedisServerError: Error, CustomStringConvertible {
    /// What failed and what to do.
    public var description: String
    init(_ description: String) { self.description = description }
}
