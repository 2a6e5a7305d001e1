import CacheChain
import Foundation
import HTTPTypes
import CacheChainTesting
import Synchronization

/// Collects events for assertions.
final class EventLog: Sendable {
    private let events = Mutex<[CacheEvent]>([])
    var sink: CacheEventSink { CacheEventSink { event in self.events.withLock { $0.append(event) } } }
    var kinds: [CacheEvent.Kind] { events.withLock { $0.map(\.kind) } }
}

/// Test fixture: a client over a `TestOrigin`, a manual clock and memory storage.
struct Harness {
    let origin = ScriptedTransport()
    let clock = ManualClock()
    let events = EventLog()
    let client: HTTPCacheClient

    init(
        storage: (any CacheStorage)? = nil,
        mode: CacheMode = .privateCache,
        willCacheResponse: StorageDecisionInterceptor.WillCacheResponse? = nil,
        outer: [any HTTPInterceptor] = []
    ) {
        client = HTTPCacheClient(
            transport: origin,
            configuration: .init(
                storage: storage ?? MemoryStorage(capacity: 1 << 20),
                policy: CachePolicyConfiguration(mode: mode),
                clock: clock,
                events: events.sink,
                willCacheResponse: willCacheResponse,
                outerInterceptors: outer
            )
        )
    }

    /// The HTTP date of the harness clock, for `Date` fields.
    var dateField: String { HTTPDate.format(clock.now()) }

    func get(_ path: String, _ fields: [(HTTPField.Name, String)] = [], policy: RequestCachePolicy? = nil) async throws -> PipelineResponse {
        var request = HTTPRequest(method: .get, scheme: "http", authority: "origin.test", path: path)
        for (name, value) in fields { request.headerFields.append(HTTPField(name: name, value: value)) }
        return try await client.data(for: request, cachePolicy: policy)
    }

    func send(_ method: HTTPRequest.Method, _ path: String) async throws -> PipelineResponse {
        try await client.data(for: HTTPRequest(method: method, scheme: "http", authority: "origin.test", path: path))
    }
}
