import CacheChain
import CacheChainMetrics
import CacheChainTesting
import HTTPTypes
import MetricsTestKit
import Testing

@Suite("Metrics plugin")
struct MetricsPluginTests {
    @Test("hits, misses, revalidations, bytes stored and evictions are counted; requests are timed per cache status")
    func countsAndTimes() async throws {
        let metrics = TestMetrics()
        let plugin = CacheMetrics(prefix: "cc", dimensions: [("cache", "test")], factory: metrics)
        let origin = ScriptedTransport()
        origin.route("/a", fields: [("Cache-Control", "max-age=60")], body: "aaaa")
        origin.route("/v", fields: [("Cache-Control", "no-cache")], body: "vvvv", etag: "\"1\"")
        // A memory tier that holds only one small entry, so storing a second evicts the first.
        let storage = MemoryStorage(capacity: 1 << 20, countLimit: 1, events: plugin.events)
        let client = HTTPCacheClient(
            transport: origin,
            configuration: .init(storage: storage, events: plugin.events, outerInterceptors: [plugin.timing()])
        )
        let a = HTTPRequest(method: .get, scheme: "http", authority: "origin.test", path: "/a")
        let v = HTTPRequest(method: .get, scheme: "http", authority: "origin.test", path: "/v")
        #expect(try await client.data(for: a).cacheStatus == .miss)
        #expect(try await client.data(for: a).cacheStatus == .hit)
        #expect(try await client.data(for: v).cacheStatus == .miss)  // evicts /a
        #expect(try await client.data(for: v).cacheStatus == .revalidated)

        let dimensions = [("cache", "test")]
        #expect(try metrics.expectCounter("cc_hits", dimensions).totalValue == 1)
        #expect(try metrics.expectCounter("cc_misses", dimensions).totalValue == 2)
        #expect(try metrics.expectCounter("cc_revalidations", dimensions).totalValue == 1)
        #expect(try metrics.expectCounter("cc_evictions", dimensions).totalValue == 1)
        #expect(try metrics.expectCounter("cc_bytes_stored", dimensions).totalValue > 8)
        #expect(metrics.timers(label: "cc_request_duration", dimensions: dimensions + [("cache_status", "hit")]).first?.values.count == 1)
        #expect(metrics.timers(label: "cc_request_duration", dimensions: dimensions + [("cache_status", "miss")]).first?.values.count == 2)
    }

    @Test("a failed request is timed with cache_status=error")
    func failureTimed() async throws {
        let metrics = TestMetrics()
        let plugin = CacheMetrics(factory: metrics)
        let origin = ScriptedTransport()
        origin.setDown(true)
        let client = HTTPCacheClient(transport: origin, configuration: .init(outerInterceptors: [plugin.timing()]))
        await #expect(throws: (any Error).self) {
            try await client.data(for: HTTPRequest(method: .get, scheme: "http", authority: "origin.test", path: "/x"))
        }
        #expect(metrics.timers(label: "cachechain_request_duration", dimensions: [("cache_status", "error")]).first?.values.count == 1)
    }

    @Test("enableMetrics() switches every wiring on at once: the client's counters, the default storage's evictions, the timer")
    func oneSwitch() async throws {
        let metrics = TestMetrics()
        let origin = ScriptedTransport()
        let big = String(repeating: "x", count: 400 << 10)  // under the default storage's 5% entry limit
        for index in 0..<30 { origin.route("/\(index)", fields: [("Cache-Control", "max-age=60")], body: big) }
        var configuration = HTTPCacheClient.Configuration()
        configuration.enableMetrics(CacheMetrics(prefix: "one", factory: metrics))
        let client = HTTPCacheClient(transport: origin, configuration: configuration)
        let first = HTTPRequest(method: .get, scheme: "http", authority: "origin.test", path: "/0")
        #expect(try await client.data(for: first).cacheStatus == .miss)
        #expect(try await client.data(for: first).cacheStatus == .hit)
        for index in 1..<30 {  // 12 MB through the default 10 MiB memory storage: the oldest are evicted
            _ = try await client.data(for: HTTPRequest(method: .get, scheme: "http", authority: "origin.test", path: "/\(index)"))
        }

        #expect(try metrics.expectCounter("one_hits").totalValue == 1)
        #expect(try metrics.expectCounter("one_misses").totalValue == 30)
        #expect(try metrics.expectCounter("one_stored").totalValue == 30)
        #expect(try metrics.expectCounter("one_evictions").totalValue > 0, "the default storage reports its evictions")
        #expect(metrics.timers(label: "one_request_duration", dimensions: [("cache_status", "hit")]).first?.values.count == 1)
        #expect(metrics.timers(label: "one_request_duration", dimensions: [("cache_status", "miss")]).first?.values.count == 30)
    }
}
