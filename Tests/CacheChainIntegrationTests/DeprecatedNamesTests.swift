import AsyncHTTPClient
import CacheChain
import CacheChainAsyncHTTPClient
import Testing

/// The names renamed in issue 44.5 keep compiling for one release, as deprecated aliases of the new ones (this
/// file's deprecation warnings are the point).
@Suite("Deprecated names still compile")
struct DeprecatedNamesTests {
    @Test("HTTPBody is PipelineBody and AsyncHTTPClientTransport is CacheChainAHCTransport")
    func aliases() async throws {
        let body: HTTPBody = HTTPBody(string: "same type")
        let renamed: PipelineBody = body
        #expect(try renamed.collect() == Array("same type".utf8))
        let transport: AsyncHTTPClientTransport = AsyncHTTPClientTransport()
        #expect(type(of: transport) == CacheChainAHCTransport.self)
        await transport.shutdown()
    }
}
