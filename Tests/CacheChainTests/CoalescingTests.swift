import CacheChain
import CacheChainTesting
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// An origin that holds every response until the test opens the gate, so concurrent requests overlap.
private final class GatedOrigin: HTTPTransport {
    let count = Mutex(0)
    let arrivals: AsyncStream<Void>
    private let arrivalsContinuation: AsyncStream<Void>.Continuation
    private let gate = Mutex<[CheckedContinuation<Void, Never>]>([])
    private let isOpen = Mutex(false)

    init() {
        (arrivals, arrivalsContinuation) = AsyncStream.makeStream()
    }

    func open() {
        isOpen.withLock { $0 = true }
        for waiter in gate.withLock({ gate in defer { gate.removeAll() }; return gate }) { waiter.resume() }
    }

    func send(_ request: PipelineRequest, context: InterceptorContext) async throws -> PipelineResponse {
        count.withLock { $0 += 1 }
        arrivalsContinuation.yield()
        await withCheckedContinuation { continuation in
            let openNow = isOpen.withLock { $0 }
            if openNow { continuation.resume() } else { gate.withLock { $0.append(continuation) } }
        }
        return PipelineResponse(
            head: HTTPResponse(status: .ok, headerFields: [.cacheControl: "max-age=60"]),
            body: PipelineBody(string: request.head.path ?? "")
        )
    }
}

@Suite("Request coalescing")
struct CoalescingTests {
    private func client(_ origin: GatedOrigin) -> HTTPCacheClient {
        HTTPCacheClient(
            pipeline: Pipeline(transport: origin) {
                CachePolicyInterceptor()
                RevalidationInterceptor()
                StorageDecisionInterceptor()
            }
        )
    }

    @Test("200 concurrent requests for one cold URL reach the origin once and all get the body")
    func sameURL() async throws {
        let origin = GatedOrigin()
        let client = client(origin)
        let bodies = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<200 {
                group.addTask { try await client.data(for: HTTPRequest(url: "http://origin.test/cold")).body.string }
            }
            var iterator = origin.arrivals.makeAsyncIterator()
            _ = await iterator.next()  // the leader reached the origin
            // Let every other task reach the coalescer before releasing the leader; a waiter that arrives
            // after the release simply finds the fresh entry in the cache, which is equally correct.
            await Task.yield()
            origin.open()
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(bodies.count == 200)
        #expect(bodies.allSatisfy { $0 == "/cold" })
        #expect(origin.count.withLock { $0 } == 1)
    }

    @Test("requests for different URLs are not merged")
    func differentURLs() async throws {
        let origin = GatedOrigin()
        origin.open()
        let client = client(origin)
        let bodies = try await withThrowingTaskGroup(of: String?.self) { group in
            for index in 0..<50 {
                group.addTask { try await client.data(for: HTTPRequest(url: "http://origin.test/\(index)")).body.string }
            }
            return try await group.reduce(into: Set<String?>()) { $0.insert($1) }
        }
        #expect(bodies.count == 50)
        #expect(origin.count.withLock { $0 } == 50)
    }
}
