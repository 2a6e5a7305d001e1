// The memory-only client: `import CacheChainClient` is enough for HTTPCacheClient over memory or tiered storage, and
// links no system library (no SQLite, xxHash, libcurl or OpenSSL). Add a transport (CacheChainAsyncHTTPClient, or
// CacheChainCurl) and, for a disk tier, CacheChainDiskStorage; `import CacheChain` brings the client and the disk.
@_exported public import CacheChainCore
@_exported public import CacheChainInterceptors
@_exported public import CacheChainPolicy
@_exported public import CacheChainStorage
@_exported public import HTTPTypes
