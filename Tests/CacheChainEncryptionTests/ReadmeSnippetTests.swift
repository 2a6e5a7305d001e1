import CacheChain
import CacheChainEncryption
import CacheChainTesting
import Foundation
import Testing

@Suite("README: encryption snippet")
struct ReadmeSnippetTests {
    @Test("the README's one-line switch-on compiles and caches, over memory and over disk")
    func snippet() async throws {
        let directory = TemporaryDirectory()
        let transport = ScriptedTransport()
        transport.route("/", fields: [("Cache-Control", "max-age=60")], body: "hello")
        let cacheDirectory = directory.path + "/cache"
        // From README.md, "Encryption at rest" (CurlTransport() replaced by a scripted origin).
        let keys = try KeyFileProvider(path: directory.path + "/cache.key")   // created with a random key, mode 0600
        let client = HTTPCacheClient(transport: transport, configuration: .init(
            storage: EncryptedStorage(wrapping: MemoryStorage(capacity: 50 << 20), keys: keys)
        ))
        let onDisk = HTTPCacheClient(transport: transport, configuration: .init(
            storage: EncryptedStorage(wrapping: try DiskStorage(directory: cacheDirectory), keys: keys)
        ))
        for client in [client, onDisk] {
            let request = try HTTPRequest(url: "https://example.com/")
            #expect(try await client.data(for: request).cacheStatus == .miss)
            let second = try await client.data(for: request)
            #expect(second.cacheStatus == .hit)
            #expect(second.body.string == "hello")
        }
    }

    @Test("the README's HTTPS switch-on compiles: HTTPS sealed under encrypted/, HTTP in the plain directory")
    func httpsSnippet() async throws {
        let directory = TemporaryDirectory()
        let transport = ScriptedTransport()
        transport.route("/", fields: [("Cache-Control", "max-age=60")], body: "hello")
        let cacheDirectory = directory.path + "/cache"
        let keys = InMemoryKeyProvider(key: try .random())
        // From README.md, "Encryption at rest" (CurlTransport() replaced by a scripted origin).
        var configuration = HTTPCacheClient.Configuration(storage: try DiskStorage(directory: cacheDirectory))
        configuration.encryptHTTPS(with: EncryptedStorage(wrapping: try DiskStorage(directory: cacheDirectory + "/encrypted"), keys: keys))
        let client = HTTPCacheClient(transport: transport, configuration: configuration)
        for url in ["https://example.com/", "http://example.com/"] {
            #expect(try await client.data(for: HTTPRequest(url: url)).cacheStatus == .miss)
            #expect(try await client.data(for: HTTPRequest(url: url)).cacheStatus == .hit)
        }
        let routed = try #require(client.configuration.storage as? HTTPSRoutedStorage)
        #expect(await routed.plain.usage().entryCount == 1)
        #expect(await routed.encrypted?.usage().entryCount == 1)
    }
}
