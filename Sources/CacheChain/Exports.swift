// The umbrella re-exports the modules a user of the client needs, so `import CacheChain` is enough.
@_exported public import CacheChainCore
@_exported public import CacheChainInterceptors
@_exported public import CacheChainPolicy
@_exported public import CacheChainStorage
@_exported public import HTTPTypes
