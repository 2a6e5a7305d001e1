public import CacheChainCore
import Foundation

extension RedisStorage.Configuration {
    /// Creates a configuration from a Redis URL, as services are usually given one (`REDIS_URL`), with every
    /// other setting at its default.
    ///
    /// Accepted forms (the IANA `redis` scheme, and the `unix` form most clients accept):
    /// - `redis://host`, `redis://host:6380`, `redis://host:6379/2` (database 2)
    /// - `redis://:password@host:6379/0` (the password percent-encoded), or `redis://default:password@host`
    /// - `redis://[::1]:6379` (an IPv6 literal)
    /// - `unix:///run/redis.sock`, `unix:///run/redis.sock?db=2&password=secret`
    ///
    /// ```swift
    /// let redis = RedisStorage(configuration: try .init(url: "redis://:s3cret@10.0.0.5:6379/2", namespace: "api-cache"))
    /// ```
    /// - Parameters:
    ///   - url: The URL.
    ///   - namespace: The key prefix; `cachechain` by default.
    /// - Throws: `CacheChainError` `invalid-configuration` naming what is wrong: another scheme (`rediss://`
    ///   needs TLS, which the hiredis 0.14 backend does not speak), a user name other than `default` (only
    ///   `AUTH password` is sent), a port outside 1…65535, a database that is not a number, or no host.
    public init(url: String, namespace: String = "cachechain") throws(CacheChainError) {
        let (endpoint, database, password) = try Self.parse(url: url)
        self.init(endpoint: endpoint, database: database, password: password, namespace: namespace)
    }

    /// The endpoint, database and password of a Redis URL.
    static func parse(url: String) throws(CacheChainError) -> (RedisStorage.Endpoint, Int, String?) {
        func invalid(_ problem: String) -> CacheChainError {
            CacheChainError(
                .invalidConfiguration,
                "'\(Self.redacted(url))' is not a usable Redis URL: \(problem) (expected redis://[:password@]host[:port][/db] or unix:///path/to/redis.sock[?db=N])"
            )
        }
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw invalid("it cannot be parsed")
        }
        let query = components.queryItems ?? []
        switch scheme {
        case "redis":
            guard var host = components.host, !host.isEmpty else { throw invalid("it names no host") }
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }  // an IPv6 literal
            if let user = components.user, !user.isEmpty, user != "default" {
                throw invalid("the user name '\(user)' is not supported (only AUTH with a password is sent)")
            }
            let port = components.port ?? 6379
            guard (1...65535).contains(port) else { throw invalid("the port \(port) is outside 1…65535") }
            let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
            let database: Int
            if path.isEmpty {
                database = try databaseNumber(query.first { $0.name == "db" }?.value ?? "0", invalid)
            } else {
                database = try databaseNumber(path, invalid)
            }
            let password = components.password?.removingPercentEncoding ?? components.password
            return (.tcp(host: host, port: port), database, password.flatMap { $0.isEmpty ? nil : $0 })
        case "unix":
            guard !components.path.isEmpty else { throw invalid("it names no socket path") }
            let database = try databaseNumber(query.first { $0.name == "db" }?.value ?? "0", invalid)
            let password = query.first { $0.name == "password" }?.value
            return (.unixSocket(components.path), database, password.flatMap { $0.isEmpty ? nil : $0 })
        case "rediss":
            throw invalid("rediss:// needs TLS, which this backend (hiredis 0.14) does not speak; reach Redis over a trusted network or a TLS tunnel")
        default:
            throw invalid("the scheme '\(scheme)' is not redis or unix")
        }
    }

    private static func databaseNumber(_ text: String, _ invalid: (String) -> CacheChainError) throws(CacheChainError) -> Int {
        guard let number = Int(text), number >= 0 else { throw invalid("the database '\(text)' is not a number 0 or more") }
        return number
    }

    /// The URL with its password replaced by `***`, for messages and logs.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        if components.password != nil { components.password = "***" }
        if let items = components.queryItems, items.contains(where: { $0.name == "password" }) {
            components.queryItems = items.map { $0.name == "password" ? URLQueryItem(name: "password", value: "***") : $0 }
        }
        return components.string ?? url
    }
}
