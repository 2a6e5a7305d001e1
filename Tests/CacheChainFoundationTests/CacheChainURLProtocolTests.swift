import CacheChain
import CacheChainFoundation
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Testing

/// The class-level answers FoundationNetworking asks `CacheChainURLProtocol` for, and what `usingCacheChain` and
/// `makeDefault(directory:)` set up.
@Suite("CacheChainURLProtocol and its configuration")
struct CacheChainURLProtocolTests {
    @Test("it answers absolute http and https URLs only")
    func canInit() throws {
        for (text, expected) in [("http://a.test/x", true), ("HTTPS://a.test/", true), ("ftp://a.test/f", false), ("ws://a.test/s", false), ("data:,x", false)] {
            let url = try #require(URL(string: text))
            #expect(CacheChainURLProtocol.canInit(with: URLRequest(url: url)) == expected, "\(text)")
        }
    }

    @Test("requests are cache-equivalent when method and URL agree; the canonical request is the request")
    func equivalence() throws {
        let url = try #require(URL(string: "https://a.test/x?y=1"))
        var post = URLRequest(url: url)
        post.httpMethod = "POST"
        var withHeader = URLRequest(url: url)
        withHeader.setValue("en", forHTTPHeaderField: "Accept-Language")
        #expect(CacheChainURLProtocol.requestIsCacheEquivalent(URLRequest(url: url), to: withHeader))
        #expect(!CacheChainURLProtocol.requestIsCacheEquivalent(URLRequest(url: url), to: post))
        #expect(!CacheChainURLProtocol.requestIsCacheEquivalent(URLRequest(url: url), to: URLRequest(url: try #require(URL(string: "https://a.test/x")))))
        #expect(CacheChainURLProtocol.canonicalRequest(for: withHeader) == withHeader)
    }

    @Test("usingCacheChain puts the protocol first, keeps the other classes and settings, and binds the client through urlCache")
    func configuration() throws {
        let client = HTTPCacheClient.ephemeral()
        let original = URLSessionConfiguration.ephemeral
        original.timeoutIntervalForRequest = 7
        let originalClasses = original.protocolClasses ?? []
        let configured = original.usingCacheChain(client)
        let classes = configured.protocolClasses ?? []
        #expect(classes.first.map(ObjectIdentifier.init) == ObjectIdentifier(CacheChainURLProtocol.self))
        #expect(classes.count == originalClasses.count + 1)
        #expect(configured.timeoutIntervalForRequest == 7)
        let cache = try #require(configured.urlCache as? CacheChainURLCache)
        #expect(cache.client.revalidationQueue === client.revalidationQueue)
        #expect(original.urlCache !== configured.urlCache, "the original configuration is unchanged")
        let again = configured.usingCacheChain(client)
        #expect(again.urlCache === cache, "a configuration already bound to the client keeps its cache")
        #expect((again.protocolClasses ?? []).count == classes.count, "the protocol is not listed twice")
    }

    @Test("makeDefault(directory:) stores in memory and on disk in the directory it is given")
    func makeDefault() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cachechain-default-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let client = HTTPCacheClient.makeDefault(directory: directory)
        let cached = CachedResponse(
            response: HTTPResponse(status: .ok, headerFields: [.cacheControl: "max-age=60"]),
            body: "stored", requestTime: Date()
        )
        try await client.storeCachedResponse(cached, for: HTTPRequest(url: "https://a.test/x"))
        #expect(await client.memoryCapacity == 4 << 20)
        #expect(await client.diskCapacity == 20 << 20)
        #expect(await client.currentDiskUsage > 0)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("cachechain-format").path))
    }
}
