import CacheChain
@testable import CacheChainRedis
import Testing

@Suite("RedisStorage.Configuration(url:)")
struct RedisURLTests {
    @Test(
        "accepted URLs give the endpoint, database and password",
        arguments: [
            ("redis://10.0.0.5", RedisStorage.Endpoint.tcp(host: "10.0.0.5", port: 6379), 0, nil),
            ("redis://cache.internal:6380", .tcp(host: "cache.internal", port: 6380), 0, nil),
            ("redis://127.0.0.1:6379/2", .tcp(host: "127.0.0.1", port: 6379), 2, nil),
            ("redis://:s%40cret@127.0.0.1:6379/0", .tcp(host: "127.0.0.1", port: 6379), 0, "s@cret"),
            ("redis://default:pw@127.0.0.1", .tcp(host: "127.0.0.1", port: 6379), 0, "pw"),
            ("REDIS://[::1]:7000/15", .tcp(host: "::1", port: 7000), 15, nil),
            ("redis://127.0.0.1?db=3", .tcp(host: "127.0.0.1", port: 6379), 3, nil),
            ("unix:///run/redis.sock", .unixSocket("/run/redis.sock"), 0, nil),
            ("unix:///run/redis.sock?db=4&password=pw", .unixSocket("/run/redis.sock"), 4, "pw"),
        ] as [(String, RedisStorage.Endpoint, Int, String?)]
    )
    func accepted(url: String, endpoint: RedisStorage.Endpoint, database: Int, password: String?) throws {
        let configuration = try RedisStorage.Configuration(url: url, namespace: "ns")
        #expect(configuration.endpoint == endpoint)
        #expect(configuration.database == database)
        #expect(configuration.password == password)
        #expect(configuration.namespace == "ns")
    }

    @Test(
        "refused URLs are invalid-configuration errors that say why, without the password",
        arguments: [
            ("http://127.0.0.1:6379", "scheme 'http'"),
            ("rediss://:pw@127.0.0.1:6380", "needs TLS"),
            ("redis://alice:pw@127.0.0.1", "user name 'alice'"),
            ("redis://127.0.0.1:6379/two", "database 'two'"),
            ("redis://127.0.0.1/-1", "database '-1'"),
            ("redis:///0", "no host"),
            ("unix://", "no socket path"),
            ("not a url", "cannot be parsed"),
        ]
    )
    func refused(url: String, reason: String) {
        let error = #expect(throws: CacheChainError.self) { try RedisStorage.Configuration(url: url) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("pw") == false, "the password is redacted: \(error?.message ?? "")")
    }
}
