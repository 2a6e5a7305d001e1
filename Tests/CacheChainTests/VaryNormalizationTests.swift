import CacheChain
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// Issue 26.5: the engine's variant selection and the stored variant key normalise `Vary` values alike, so two
/// spellings of one list never pile up as two stored variants.
@Suite("One Vary normaliser")
struct VaryNormalizationTests {
    @Test("`text/html,application/json` and `text/html, application/json` are one stored variant", arguments: ["memory", "disk"])
    func oneVariantForTwoSpellings(backend: String) async throws {
        let directory = NSTemporaryDirectory() + "cachechain-vary-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let storage: any CacheStorage = backend == "disk" ? try DiskStorage(directory: directory) : MemoryStorage(capacity: 1 << 20)
        let h = Harness(storage: storage)
        h.origin.route("/v", fields: [("Cache-Control", "max-age=60"), ("Vary", "Accept")], body: "negotiated")
        #expect(try await h.get("/v", [(.accept, "text/html,application/json")]).cacheStatus == .miss)
        #expect(try await h.get("/v", [(.accept, "text/html, application/json")]).cacheStatus == .hit)
        // A reload fetches and stores again: it must replace the variant, not add a second spelling of it.
        let reloaded = try await h.get("/v", [(.accept, "text/html ,application/json")], policy: .reloadIgnoringLocalCacheData)
        #expect(reloaded.cacheStatus == .miss)
        let key = CacheKey(HTTPRequest(method: .get, scheme: "http", authority: "origin.test", path: "/v"))
        let stored = try await storage.entries(for: key)
        #expect(stored.count == 1, "variant keys: \(stored.map(\.variantKey))")
        // Accept is compared as preferences (issue 45.4): equal-weight members in alphabetical order.
        #expect(stored.first?.variantKey == "accept=application/json, text/html")
        #expect(try await h.get("/v", [(.accept, "text/html"), (.accept, "application/json")]).cacheStatus == .hit)
        #expect(h.origin.requestCount(for: "/v") == 2)
    }

    @Test("the README's snippet: an entry keeps a digest of the cookie Vary names and drops Authorization")
    func readmeSnippet() throws {
        let directory = NSTemporaryDirectory() + "cachechain-vary-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // README "What an entry keeps of its request" (with the directory of the test's own):
        let storage = try DiskStorage(directory: directory)
        var request = try HTTPRequest(url: "https://example.com/account")
        request.headerFields[.cookie] = "session=42"
        request.headerFields[.authorization] = "Bearer token"
        let response = HTTPResponse(status: .ok, headerFields: [.vary: "Accept, Cookie", .cacheControl: "max-age=60"])
        let cached = CachedResponse(response: response, body: "…", requestTime: Date(), responseTime: Date())
        let entry = CacheEntry(request: request, cached: cached, varyDigestKey: storage.varyDigestKey(for: CacheKey(request)))
        print(entry.request.headerFields[.cookie] ?? "")          // hmac-sha256:…, never the cookie
        print(entry.request.headerFields[.authorization] ?? "-")  // -: Vary does not name it
        #expect(entry.request.headerFields[.cookie]?.hasPrefix("hmac-sha256:") == true)
        #expect(entry.request.headerFields[.authorization] == nil)
        let again = try DiskStorage(directory: directory)
        #expect(again.varyDigestKey(for: CacheKey(request)) == storage.varyDigestKey(for: CacheKey(request)), "the directory keeps its key")
    }
}
