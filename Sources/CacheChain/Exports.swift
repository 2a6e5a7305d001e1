// The umbrella re-exports the modules a user of the client needs, so `import CacheChain` is enough: the client
// with memory and tiered storage (CacheChainClient, which links no system library) and the disk backend
// (CacheChainDiskStorage: SQLite and xxHash). A user who needs no disk depends on CacheChainClient alone.
@_exported public import CacheChainClient
@_exported public import CacheChainCore
@_exported public import CacheChainDiskStorage
@_exported public import CacheChainInterceptors
@_exported public import CacheChainPolicy
@_exported public import CacheChainStorage
@_exported public import HTTPTypes
