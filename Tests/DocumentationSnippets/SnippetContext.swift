// The names documentation snippets may use without declaring them.
//
// Every ```swift block of README.md, of the DocC articles and of the `///` comments under Sources/ and
// Plugins/ is compiled in this target (see DocumentationSnippetsPlugin). A fragment (a snippet that does
// not import CacheChain) runs as a method of `SnippetContext`, so it can use the properties below as the
// prose around it assumes them: "`client`" is the reader's HTTPCacheClient, "`request`" their request. A
// snippet that uses a name nobody declares fails to compile: declare the name in the snippet itself when a
// reader would need to, or add it here when the surrounding text already introduced it.
import CacheChain
import CacheChainCurl
import CacheChainEncryption
import CacheChainLoopback
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging

/// What the prose around a fragment has already introduced.
struct SnippetContext {
    /// The reader's client.
    var client: HTTPCacheClient
    /// The reader's transport.
    var transport: CurlTransport
    /// A request being sent.
    var request: HTTPRequest
    /// An interceptor's context (inside `intercept(_:context:next:)`).
    var context: InterceptorContext
    /// A response the reader received.
    var response: PipelineResponse
    /// A stored entry.
    var entry: CacheEntry
    /// The reader's logger.
    var logger: Logger
    /// Whether the reader wants verbose logging.
    var verbose: Bool
    /// Where a body is written.
    var output: FileHandle
    /// A chunk of bytes.
    var chunk: [UInt8]
    /// The reader's cache directory.
    var cacheDirectory: String
    /// The directory of the encrypted HTTPS tier.
    var httpsDirectory: String
    /// A key file's path.
    var keyPath: String
    /// The encryption keys.
    var keys: any KeyProvider
    /// 32 bytes of key material.
    var thirtyTwoBytes: [UInt8]
    /// The ID of a key being retired.
    var oldID: String
    /// The backend of plain responses.
    var plainStorage: any CacheStorage
    /// A loopback origin started by a test.
    var origin: LoopbackOrigin
    /// A URL the reader loads.
    var url: URL
    /// The reader's storage backend.
    var myStorage: any CacheStorage
}

/// The reader's own logging interceptor.
struct MyLoggingInterceptor: HTTPInterceptor {
    func intercept(_ request: PipelineRequest, context: InterceptorContext, next: Next) async throws -> PipelineResponse {
        try await next(request, context)
    }
}

/// The reader's own `userInfo` key (e.g. the user an entry belongs to).
enum UserKey: CacheUserInfoKey {
    typealias Value = String
    static let name = "user"
}

/// The reader's own storage backend, as the conformance-suite snippets name it. Only compiled, never run:
/// it stores nothing.
actor MyBackend: CacheStorage {
    init() {}
    init(directory: String) throws {}
    init(reopening other: any CacheStorage) throws {}
    func entries(for key: CacheKey) async throws -> [CacheEntry] { [] }
    func store(_ entry: CacheEntry) async throws {}
    func remove(_ key: CacheKey) async throws {}
    func removeAll() async throws {}
    func keys() async throws -> [CacheKey] { [] }
    func usage() async -> StorageUsage { StorageUsage() }
}

/// A fresh temporary directory for a test.
func temporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "snippet-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
