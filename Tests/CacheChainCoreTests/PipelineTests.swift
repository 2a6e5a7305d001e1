import CacheChainCore
import HTTPTypes
import Synchronization
import Testing

/// A transport answering every request with 200 and recording what it received.
private final class RecordingTransport: HTTPTransport {
    let received = Mutex<[String]>([])

    func send(_ request: PipelineRequest, context: InterceptorContext) async throws -> PipelineResponse {
        received.withLock { $0.append(request.head.path ?? "") }
        return PipelineResponse(head: HTTPResponse(status: .ok), body: "origin")
    }
}

/// An interceptor appending its name to a shared journal on the way in and on the way out.
private struct JournalInterceptor: HTTPInterceptor {
    let name: String
    let journal: Journal

    func intercept(_ request: PipelineRequest, context: InterceptorContext, next: Next) async throws -> PipelineResponse {
        journal.append("\(name)>")
        let response = try await next(request, context)
        journal.append("<\(name)")
        return response
    }
}

private final class Journal: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

private struct NoStorage: CacheStorage {
    func entries(for key: CacheKey) async throws -> [CacheEntry] { [] }
    func store(_ entry: CacheEntry) async throws {}
    func remove(_ key: CacheKey) async throws {}
    func removeAll() async throws {}
    func keys() async throws -> [CacheKey] { [] }
    func usage() async -> StorageUsage { StorageUsage() }
}

private func request(_ path: String = "/") -> PipelineRequest {
    PipelineRequest(head: HTTPRequest(method: .get, scheme: "http", authority: "example.com", path: path))
}

@Suite("Pipeline")
struct PipelineTests {
    @Test("the first interceptor sees the request first and the response last")
    func order() async throws {
        let journal = Journal()
        let pipeline = Pipeline(
            interceptors: ["a", "b", "c"].map { JournalInterceptor(name: $0, journal: journal) },
            transport: RecordingTransport()
        )
        let response = try await pipeline.send(request(), context: InterceptorContext(storage: NoStorage()))
        #expect(journal.all == ["a>", "b>", "c>", "<c", "<b", "<a"])
        #expect(response.body.string == "origin")
    }

    @Test("the result builder supports if, else and for, keeping order")
    func builder() async throws {
        let journal = Journal()
        let verbose = false
        let pipeline = Pipeline(transport: RecordingTransport()) {
            JournalInterceptor(name: "first", journal: journal)
            if verbose {
                JournalInterceptor(name: "verbose", journal: journal)
            } else {
                JournalInterceptor(name: "quiet", journal: journal)
            }
            for index in 1...2 {
                JournalInterceptor(name: "loop\(index)", journal: journal)
            }
        }
        #expect(pipeline.interceptors.count == 4)
        _ = try await pipeline.send(request(), context: InterceptorContext(storage: NoStorage()))
        #expect(journal.all.prefix(4) == ["first>", "quiet>", "loop1>", "loop2>"])
    }

    @Test("an interceptor short-circuits by returning without calling next")
    func shortCircuit() async throws {
        let transport = RecordingTransport()
        let pipeline = Pipeline(
            interceptors: [AnyInterceptor(name: "stub") { _, _, _ in PipelineResponse(head: HTTPResponse(status: .accepted)) }],
            transport: transport
        )
        let response = try await pipeline.send(request(), context: InterceptorContext(storage: NoStorage()))
        #expect(response.head.status == .accepted)
        #expect(transport.received.withLock { $0.isEmpty })
    }

    #if DEBUG
    @Test("calling next twice is a contract violation in debug builds")
    func nextTwice() async throws {
        let transport = RecordingTransport()
        let greedy = AnyInterceptor(name: "greedy") { request, context, next in
            _ = try await next(request, context)
            return try await next(request, context)
        }
        let pipeline = Pipeline(interceptors: [greedy], transport: transport)
        let error = await #expect(throws: CacheChainError.self) {
            try await pipeline.send(request(), context: InterceptorContext(storage: NoStorage()))
        }
        #expect(error?.code == .interceptorContractViolation)
        #expect(transport.received.withLock { $0.count } == 1)
    }
    #endif

    @Test("a change to the context is seen by inner interceptors only")
    func contextFlowsInward() async throws {
        enum Marker: ContextValueKey { typealias Value = String }
        let seen = Mutex<[String?]>([])
        let observe = { (label: String) in
            AnyInterceptor(name: label) { request, context, next in
                seen.withLock { $0.append(context.values[Marker.self]) }
                return try await next(request, context)
            }
        }
        let setter = AnyInterceptor(name: "setter") { request, context, next in
            var inner = context
            inner.values[Marker.self] = "set"
            return try await next(request, inner)
        }
        let pipeline = Pipeline(interceptors: [observe("outer"), setter, observe("inner")], transport: RecordingTransport())
        _ = try await pipeline.send(request(), context: InterceptorContext(storage: NoStorage()))
        #expect(seen.withLock { $0 } == [nil, "set"])
    }
}
