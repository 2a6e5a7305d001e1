import CacheChain
import CacheChainCurl
@testable import CacheChainEncryption
import CacheChainLoopback
import CacheChainDiskStorage
import CacheChainStorage
import Foundation
import Testing

/// The plugin end to end: real HTTP and HTTPS loopback origins, the libcurl transport, disk backends.
@Suite("HTTPSEncryptionInterceptor: HTTPS sealed on disk, HTTP plain, through the whole client")
struct HTTPSEncryptionInterceptorTests {
    static let secretPath = "/account/statement-8812"
    static let secretBody = "HTTPS-BODY-MARKER-c0ffee"
    static let secretHeader = "HTTPS-HEADER-MARKER-77aa"
    static let publicBody = "HTTP-BODY-MARKER-public"

    /// An HTTPS and an HTTP origin, a transport trusting the HTTPS one, and a scratch directory.
    final class Network: Sendable {
        let https: LoopbackOrigin
        let http: LoopbackOrigin
        let transport: CurlTransport
        let directory = TemporaryDirectory("https-plugin")

        init() async throws {
            https = try await LoopbackOrigin.start(tls: true)
            http = try await LoopbackOrigin.start()
            let caFile = try LoopbackCertificate.writeCertificate(to: directory.path)
            transport = CurlTransport(configuration: .init(caFile: caFile, pinnedPublicKey: LoopbackCertificate.publicKeyPin))
            let headers = [("Cache-Control", "max-age=600"), ("X-Account", Self.secretHeader)]
            https.route(HTTPSEncryptionInterceptorTests.secretPath, LoopbackRoute(headers: headers, body: HTTPSEncryptionInterceptorTests.secretBody))
            http.route("/public", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: HTTPSEncryptionInterceptorTests.publicBody))
        }

        static var secretHeader: String { HTTPSEncryptionInterceptorTests.secretHeader }

        var secretURL: String { https.url(HTTPSEncryptionInterceptorTests.secretPath) }
        var publicURL: String { http.url("/public") }

        func stop() async throws {
            try await https.shutdown()
            try await http.shutdown()
        }

        /// Every regular file's bytes under the scratch directory, concatenated with its path.
        func filesUnderDirectory() throws -> [(path: String, bytes: [UInt8])] {
            var files: [(String, [UInt8])] = []
            let enumerator = try #require(FileManager.default.enumerator(atPath: directory.path))
            for case let name as String in enumerator {
                let path = directory.path + "/" + name
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                      let data = FileManager.default.contents(atPath: path) else { continue }
                files.append((path, Array(data)))
            }
            return files
        }
    }

    /// A client whose plain tier is `plain/` and whose HTTPS tier is sealed into `encrypted/`.
    static func client(_ net: Network, keys: any KeyProvider, mode: HTTPSEncryptionMode = .encryptHTTPS) throws -> HTTPCacheClient {
        let plain = try DiskStorage(directory: net.directory.path + "/plain", capacity: 64 << 20, durability: .durable)
        let sealed = try DiskStorage(directory: net.directory.path + "/encrypted", capacity: 64 << 20, durability: .durable)
        var configuration = HTTPCacheClient.Configuration(storage: plain)
        configuration.encryptHTTPS(with: EncryptedStorage(wrapping: sealed, keys: keys), mode: mode)
        return HTTPCacheClient(transport: net.transport, configuration: configuration)
    }

    @Test("no byte under the cache directory holds the HTTPS URL, header or body; the HTTP entry stays readable; a new client still hits")
    func noPlaintextOnDisk() async throws {
        let net = try await Network()
        let keys = InMemoryKeyProvider(key: try .random())
        let client = try Self.client(net, keys: keys)
        for _ in 0..<2 {
            #expect(try await client.data(for: HTTPRequest(url: net.secretURL)).body.string == Self.secretBody)
            #expect(try await client.data(for: HTTPRequest(url: net.publicURL)).body.string == Self.publicBody)
        }
        #expect(net.https.requestCount(for: Self.secretPath) == 1)
        #expect(net.http.requestCount(for: "/public") == 1)

        let files = try net.filesUnderDirectory()
        let httpsAuthority = "127.0.0.1:\(net.https.port)"
        let all = files.flatMap(\.bytes)
        #expect(all.count > 0)
        for marker in [Self.secretBody, Self.secretHeader, Self.secretPath, "statement-8812", httpsAuthority] {
            let found = contains(all, marker)   // a Bool, so a failure does not print every byte
            #expect(!found, "\(marker) found in clear under the cache directory")
        }
        let plainFiles = files.filter { $0.path.contains("/plain/") }.flatMap(\.bytes)
        let publicBodyStored = contains(plainFiles, Self.publicBody)
        #expect(publicBodyStored, "the HTTP body is stored as is in the plain tier")

        // Another process's client on the same directories, with the same key: both are hits.
        let restarted = try Self.client(net, keys: keys)
        let again = try await restarted.data(for: HTTPRequest(url: net.secretURL))
        #expect(again.cacheStatus == .hit)
        #expect(again.body.string == Self.secretBody)
        #expect(try await restarted.data(for: HTTPRequest(url: net.publicURL)).cacheStatus == .hit)
        #expect(net.https.requestCount(for: Self.secretPath) == 1)
        try await net.stop()
    }

    @Test("with a destroyed key an HTTPS response is served but not stored, and the trace says why; HTTP is unaffected")
    func noCurrentKey() async throws {
        let net = try await Network()
        let key = try EncryptionKey.random(id: "session")
        let keys = InMemoryKeyProvider(key: key)
        let client = try Self.client(net, keys: keys)
        #expect(try await client.data(for: HTTPRequest(url: net.secretURL)).cacheStatus == .miss)
        #expect(try await client.data(for: HTTPRequest(url: net.secretURL)).cacheStatus == .hit)

        #expect(keys.destroyKey(withID: "session"))   // logout: crypto-shredding
        let afterLogout = try await client.data(for: HTTPRequest(url: net.secretURL))
        #expect(afterLogout.cacheStatus == .miss)
        #expect(afterLogout.body.string == Self.secretBody)
        #expect(afterLogout.trace.contains { $0.code == .encryption && $0.detail.contains("no current encryption key") })
        #expect(try await client.data(for: HTTPRequest(url: net.secretURL)).cacheStatus == .miss)
        #expect(net.https.requestCount(for: Self.secretPath) == 3)

        #expect(try await client.data(for: HTTPRequest(url: net.publicURL)).cacheStatus == .miss)
        #expect(try await client.data(for: HTTPRequest(url: net.publicURL)).cacheStatus == .hit)
        try await net.stop()
    }

    @Test("encryptEverything seals HTTP responses too: the plain tier stays empty")
    func encryptEverything() async throws {
        let net = try await Network()
        let client = try Self.client(net, keys: InMemoryKeyProvider(key: try .random()), mode: .encryptEverything)
        #expect(try await client.data(for: HTTPRequest(url: net.publicURL)).cacheStatus == .miss)
        #expect(try await client.data(for: HTTPRequest(url: net.publicURL)).cacheStatus == .hit)
        let routed = try #require(client.configuration.storage as? HTTPSRoutedStorage)
        #expect(await routed.plain.usage().entryCount == 0)
        #expect(await routed.encrypted?.usage().entryCount == 1)
        let publicBodyInClear = contains(try net.filesUnderDirectory().flatMap(\.bytes), Self.publicBody)
        #expect(!publicBodyInClear)
        try await net.stop()
    }

    @Test("keepHTTPSInMemoryOnly: HTTPS hits come from the memory tier and never reach the disk tier")
    func httpsInMemoryOnly() async throws {
        let net = try await Network()
        let disk = try DiskStorage(directory: net.directory.path + "/plain", capacity: 64 << 20)
        var configuration = HTTPCacheClient.Configuration(
            storage: TieredStorage(memory: MemoryStorage(capacity: 8 << 20), disk: disk)
        )
        configuration.keepHTTPSInMemoryOnly()
        let client = HTTPCacheClient(transport: net.transport, configuration: configuration)
        let first = try await client.data(for: HTTPRequest(url: net.secretURL))
        #expect(first.trace.contains { $0.code == .encryption && $0.detail.contains("memory only") })
        #expect(first.trace.contains { $0.code == .storable && $0.detail == "stored in memory only" })
        #expect(try await client.data(for: HTTPRequest(url: net.secretURL)).cacheStatus == .hit)
        #expect(try await client.data(for: HTTPRequest(url: net.publicURL)).cacheStatus == .miss)
        try await disk.flush()
        #expect(await disk.usage().entryCount == 1, "only the HTTP entry is on disk")
        let secretBodyOnDisk = contains(try net.filesUnderDirectory().flatMap(\.bytes), Self.secretBody)
        #expect(!secretBodyOnDisk)
        try await net.stop()
    }

    @Test("the management API covers both tiers: usage adds them, removals and purges reach the encrypted tier")
    func management() async throws {
        let net = try await Network()
        let client = try Self.client(net, keys: InMemoryKeyProvider(key: try .random()))
        _ = try await client.data(for: HTTPRequest(url: net.secretURL))
        _ = try await client.data(for: HTTPRequest(url: net.publicURL))
        #expect(try await client.cachedResponse(for: HTTPRequest(url: net.secretURL))?.body.string == Self.secretBody)
        #expect(await client.currentDiskUsage > Self.secretBody.utf8.count + Self.publicBody.utf8.count)
        #expect(await client.diskCapacity == 128 << 20)

        try await client.removeCachedResponses(urlPrefix: net.https.url("/account/"))
        #expect(try await client.cachedResponse(for: HTTPRequest(url: net.secretURL)) == nil)
        #expect(try await client.cachedResponse(for: HTTPRequest(url: net.publicURL)) != nil)

        _ = try await client.data(for: HTTPRequest(url: net.secretURL))
        try await client.removeAllCachedResponses()
        #expect(try await client.cachedResponse(for: HTTPRequest(url: net.secretURL)) == nil)
        #expect(try await client.cachedResponse(for: HTTPRequest(url: net.publicURL)) == nil)
        #expect(try await client.configuration.storage.keys().isEmpty)
        try await net.stop()
    }

    @Test("a byte flipped in a sealed entry file on disk: the next request is a miss with a reason, the body is fetched again")
    func tamperedFileOnDisk() async throws {
        let net = try await Network()
        // A body above the disk's inline limit, so it lives in its own file under encrypted/.
        let large = String(repeating: "0123456789abcdef", count: 4096)
        net.https.route("/large", LoopbackRoute(headers: [("Cache-Control", "max-age=600")], body: large))
        let client = try Self.client(net, keys: InMemoryKeyProvider(key: try .random()))
        _ = try await client.data(for: HTTPRequest(url: net.https.url("/large")))
        let sealedFiles = try net.filesUnderDirectory().filter {
            $0.path.contains("/encrypted/") && !$0.path.contains("index.sqlite") && $0.bytes.count > 60_000
        }
        let file = try #require(sealedFiles.first)
        var bytes = file.bytes
        bytes[bytes.count / 2] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: file.path))

        let response = try await client.data(for: HTTPRequest(url: net.https.url("/large")))
        #expect(response.cacheStatus == .miss)
        #expect(response.body.string == large)
        #expect(response.trace.contains { $0.code == .storageError })
        #expect(net.https.requestCount(for: "/large") == 2)
        try await net.stop()
    }
}

@Suite("HTTPSEncryptionMode routes")
struct HTTPSEncryptionModeTests {
    @Test("each mode's route for https, HTTPS (any case) and http; the routed storage's backend per scheme")
    func routes() async throws {
        #expect(HTTPSEncryptionMode.encryptHTTPS.route(forScheme: "https") == .encrypted)
        #expect(HTTPSEncryptionMode.encryptHTTPS.route(forScheme: "HTTPS") == .encrypted)
        #expect(HTTPSEncryptionMode.encryptHTTPS.route(forScheme: "http") == .plain)
        #expect(HTTPSEncryptionMode.encryptEverything.route(forScheme: "http") == .encrypted)
        #expect(HTTPSEncryptionMode.httpsInMemoryOnly.route(forScheme: "https") == .plainInMemoryOnly)
        #expect(HTTPSEncryptionMode.httpsInMemoryOnly.route(forScheme: "http") == .plain)

        let plain = MemoryStorage(capacity: 1 << 20)
        let encrypted = EncryptedStorage(wrapping: MemoryStorage(capacity: 1 << 20), keys: InMemoryKeyProvider(key: try .random()))
        let routed = HTTPSRoutedStorage(plain: plain, encrypted: encrypted)
        #expect(routed.backend(forScheme: "https") is EncryptedStorage)
        #expect(routed.backend(forScheme: "http") is MemoryStorage)
        let memoryOnly = HTTPSRoutedStorage(keepingHTTPSInMemoryOnly: plain)
        #expect(memoryOnly.encrypted == nil)
        #expect(memoryOnly.backend(forScheme: "https") is MemoryStorage)
    }
}
