import CacheChain
import CacheChainTesting
import Foundation
import HTTPTypes
import Testing

/// Issue 25.7 through the client: a response that varies on a field every client sets differently.
@Suite("A Vary flood through the client")
struct VariantFloodTests {
    @Test("100 values of a Vary field on disk: every response is served and stored, the key keeps 32 variants, and the newest hits")
    func flood() async throws {
        let directory = NSTemporaryDirectory() + "cachechain-flood-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let storage = try DiskStorage(directory: directory)
        let h = Harness(storage: storage)
        h.origin.route("/per-client", fields: [("Cache-Control", "max-age=600"), ("Vary", "X-Client")], body: "yours")
        let name = try #require(HTTPField.Name("X-Client"))
        for client in 0..<100 {
            let response = try await h.get("/per-client", [(name, "client-\(client)")])
            #expect(response.cacheStatus == .miss && response.body.string == "yours")
            #expect(response.trace.contains { $0.code == .storable }, "client \(client): \(response.trace)")
        }
        let key = CacheKey(HTTPRequest(method: .get, scheme: "http", authority: "origin.test", path: "/per-client"))
        #expect(try await storage.entries(for: key).count == 32)
        #expect(try await h.get("/per-client", [(name, "client-99")]).cacheStatus == .hit)
        #expect(try await h.get("/per-client", [(name, "client-0")]).cacheStatus == .miss, "the oldest were evicted")
    }
}
