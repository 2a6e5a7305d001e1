#if AsyncHTTPClient
/// The former name of ``CacheChainAHCTransport``, which collided with OpenAPIAsyncHTTPClient's
/// `AsyncHTTPClientTransport` in a file that imports both.
@available(*, deprecated, renamed: "CacheChainAHCTransport", message: "renamed CacheChainAHCTransport: OpenAPIAsyncHTTPClient has an AsyncHTTPClientTransport too")
public typealias AsyncHTTPClientTransport = CacheChainAHCTransport
#endif
