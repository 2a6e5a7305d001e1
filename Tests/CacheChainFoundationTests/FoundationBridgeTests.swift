import CacheChain
import CacheChainFoundation
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Synchronization
import Testing

/// Answers every GET with a cacheable body and counts requests.
private final class CountingOrigin: HTTPTransport {
    let count = Mutex(0)
    func send(_ request: PipelineRequest, context: InterceptorContext) async throws -> PipelineResponse {
        count.withLock { $0 += 1 }
        var fields = HTTPFields()
        fields[.cacheControl] = "max-age=60"
        fields[.contentType] = "text/plain"
        return PipelineResponse(head: HTTPResponse(status: .ok, headerFields: fields), body: "from origin")
    }
}

@Suite("Foundation bridge")
struct FoundationBridgeTests {
    @Test("every URLRequest.CachePolicy maps to its CacheChain policy and back", arguments: RequestCachePolicy.allCases)
    func policyRoundTrip(policy: RequestCachePolicy) {
        #expect(RequestCachePolicy(policy.urlRequestCachePolicy) == policy)
    }

    @Test("storage policies map both ways", arguments: StoragePolicy.allCases)
    func storagePolicyRoundTrip(policy: StoragePolicy) {
        #expect(StoragePolicy(policy.urlCacheStoragePolicy) == policy)
    }

    @Test("data(for: URLRequest) caches, and honours the URLRequest's cachePolicy")
    func dataForURLRequest() async throws {
        let origin = CountingOrigin()
        let client = HTTPCacheClient(transport: origin)
        let url = try #require(URL(string: "http://origin.test/x"))
        let (data, response) = try await client.data(for: URLRequest(url: url))
        #expect(String(decoding: data, as: UTF8.self) == "from origin")
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "Cache-Control") == "max-age=60")
        let hit = try await client.response(for: URLRequest(url: url))
        #expect(hit.cacheStatus == .hit)
        let reload = try await client.response(for: URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData))
        #expect(reload.cacheStatus == .miss)
        #expect(origin.count.withLock { $0 } == 2)
    }

    @Test("CachedResponse converts to CachedURLResponse and back")
    func cachedURLResponse() throws {
        let cached = CachedResponse(
            response: HTTPResponse(status: .ok, headerFields: [.cacheControl: "max-age=5"]),
            body: "abc",
            storagePolicy: .allowedInMemoryOnly,
            requestTime: Date(timeIntervalSince1970: 100)
        )
        let url = try #require(URL(string: "https://example.com/a"))
        let foundation = try #require(cached.cachedURLResponse(for: url))
        #expect(foundation.data == Data("abc".utf8))
        #expect(foundation.storagePolicy == .allowedInMemoryOnly)
        #expect((foundation.response as? HTTPURLResponse)?.statusCode == 200)
        let back = try #require(CachedResponse(foundation, requestTime: Date(timeIntervalSince1970: 100)))
        #expect(back.body == cached.body)
        #expect(back.storagePolicy == .allowedInMemoryOnly)
        #expect(back.response.headerFields[.cacheControl] == "max-age=5")
    }
}
