import CacheChain
import CacheChainCurl
import CacheChainLoopback
import Foundation
import Synchronization
import Testing

@Suite("CurlTransport progress reports", .tags(.integration))
struct TransferProgressTests {
    @Test("a 5 MiB body is reported every MiB with its Content-Length, then once complete; a cache hit reports nothing")
    func reportsAsTheBodyArrives() async throws {
        let origin = try await LoopbackOrigin.start()
        let size = 5 << 20 + 100
        origin.route("/big", LoopbackRoute(headers: [("Cache-Control", "max-age=60")], body: .generated(count: size)))
        let reports = Mutex<[TransferProgress]>([])
        var values = ContextValues()
        values[TransferProgressKey.self] = { progress in reports.withLock { $0.append(progress) } }
        let client = HTTPCacheClient(transport: CurlTransport(), configuration: .init(storage: MemoryStorage(capacity: 256 << 20)))
        let request = PipelineRequest(head: try HTTPRequest(url: origin.url("/big")))

        let response = try await client.send(request, values: values)
        #expect(response.body.count == size)
        let seen = reports.withLock { $0 }
        #expect(seen.filter { !$0.isComplete }.count == 5, "one report per MiB received")
        #expect(seen.map(\.receivedBytes) == seen.map(\.receivedBytes).sorted())
        #expect(seen.allSatisfy { $0.expectedBytes == size })
        #expect(seen.last == TransferProgress(receivedBytes: size, expectedBytes: size, isComplete: true))
        #expect(seen.filter(\.isComplete).count == 1)

        reports.withLock { $0.removeAll() }
        #expect(try await client.send(request, values: values).cacheStatus == .hit)
        #expect(reports.withLock { $0.isEmpty }, "no transfer, no report")
        try await origin.shutdown()
    }
}
