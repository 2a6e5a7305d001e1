// Both body types in one file: CacheChain's `PipelineBody` and OpenAPIRuntime's `HTTPBody`.
import CacheChain
import CacheChainOpenAPI
import Foundation
import OpenAPIRuntime
import Testing

@Suite("CacheChain.PipelineBody ⇄ OpenAPIRuntime.HTTPBody", .tags(.openAPI))
struct BodyConversionTests {
    @Test("an in-memory body converts both ways with its bytes and a known length")
    func inMemory() async throws {
        let cacheBody = CacheChain.PipelineBody(string: "hello, body")
        let openAPIBody = OpenAPIRuntime.HTTPBody(cacheBody)
        #expect(openAPIBody.length == .known(11))
        let back = try await CacheChain.PipelineBody(collecting: openAPIBody)
        #expect(back == cacheBody)
        #expect(back.inMemoryBytes != nil)
        #expect(try await String(collecting: OpenAPIRuntime.HTTPBody(cacheBody), upTo: 100) == "hello, body", "iterable more than once")
    }

    @Test("a body over the memory limit is collected into a spool file and streams back from it")
    func spooled() async throws {
        let spool = NSTemporaryDirectory() + "cachechain-conversion-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: spool) }
        let bytes = (0..<(3 << 20)).map { UInt8($0 % 253) }
        let limits = HTTPCacheMiddleware.BodyLimits(inMemoryBodyLimit: 1 << 20, spoolDirectory: spool)
        let source = OpenAPIRuntime.HTTPBody(AsyncStream { continuation in
            for start in stride(from: 0, to: bytes.count, by: 64 << 10) { continuation.yield(bytes[start..<min(bytes.count, start + (64 << 10))]) }
            continuation.finish()
        }, length: .unknown)
        let collected = try await CacheChain.PipelineBody(collecting: source, limits: limits)
        #expect(collected.file != nil, "past inMemoryBodyLimit the body is file-backed")
        #expect(try collected.collect() == bytes)
        let streamed = try await [UInt8](collecting: OpenAPIRuntime.HTTPBody(collected), upTo: .max)
        #expect(streamed == bytes)
    }

    @Test("a body over maximumBodySize fails with a clear error and leaves no spool file")
    func tooLarge() async throws {
        let spool = NSTemporaryDirectory() + "cachechain-conversion-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: spool) }
        let limits = HTTPCacheMiddleware.BodyLimits(inMemoryBodyLimit: 1 << 10, maximumBodySize: 1 << 20, spoolDirectory: spool)
        let source = OpenAPIRuntime.HTTPBody([UInt8](repeating: 7, count: 2 << 20))
        let error = await #expect(throws: CacheChainError.self) { try await CacheChain.PipelineBody(collecting: source, limits: limits) }
        #expect(error?.message.contains("maximum body size") == true)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: spool)) ?? []).isEmpty)
    }
}
