// swift-tools-version:6.1
import PackageDescription

/// Settings shared by every CacheChain target: Swift 6 language mode (strict concurrency) plus the
/// upcoming features our style guide requires.
let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let httpTypes: Target.Dependency = .product(name: "HTTPTypes", package: "swift-http-types")

/// A product of another package that only a trait brings in: with the trait off (the default), SwiftPM 6.2+ neither
/// resolves nor fetches that package for a consumer (SE-0450). One trait per condition: 6.2 reads several as all-of,
/// 6.3 as any-of.
func guarded(_ product: String, _ package: String, by trait: String) -> Target.Dependency {
    .product(name: product, package: package, condition: .when(traits: [trait]))
}
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
/// swift-distributed-tracing: the client span of every request and the trace context a transport sends on.
let tracing: Target.Dependency = .product(name: "Tracing", package: "swift-distributed-tracing")
/// SwiftNIO's HTTP/1.1 and HTTP/2 server stack with TLS (ALPN): the loopback origin and its test client (the
/// `Loopback` trait).
let nioHTTPServer: [Target.Dependency] = [
    guarded("NIOCore", "swift-nio", by: "Loopback"),
    guarded("NIOPosix", "swift-nio", by: "Loopback"),
    guarded("NIOHTTP1", "swift-nio", by: "Loopback"),
    guarded("NIOHTTP2", "swift-nio-http2", by: "Loopback"),
    guarded("NIOTLS", "swift-nio", by: "Loopback"),
    guarded("NIOSSL", "swift-nio-ssl", by: "Loopback"),
]

let package = Package(
    name: "CacheChain",
    platforms: [.macOS(.v15)],
    products: [
        // The client and its common set: CacheChainClient plus the disk backend (SQLite, xxHash).
        .library(name: "CacheChain", targets: ["CacheChain"]),
        // The client with memory and tiered storage, the pipeline and the built-in interceptors: no system library.
        .library(name: "CacheChainClient", targets: ["CacheChainClient"]),
        .library(name: "CacheChainPolicy", targets: ["CacheChainPolicy"]),
        .library(name: "CacheChainCore", targets: ["CacheChainCore"]),
        .library(name: "CacheChainStorage", targets: ["CacheChainStorage"]),
        // DiskStorage: links SQLite 3 (libsqlite3-dev) and xxHash (libxxhash-dev).
        .library(name: "CacheChainDiskStorage", targets: ["CacheChainDiskStorage"]),
        .library(name: "CacheChainInterceptors", targets: ["CacheChainInterceptors"]),
        .library(name: "CacheChainTesting", targets: ["CacheChainTesting"]),
        .library(name: "CacheChainFoundation", targets: ["CacheChainFoundation"]),
        .library(name: "CacheChainCurl", targets: ["CacheChainCurl"]),
        .library(name: "CacheChainLoopback", targets: ["CacheChainLoopback"]),
        .library(name: "CacheChainBatch", targets: ["CacheChainBatch"]),
        .executable(name: "cachechain", targets: ["cachechain"]),
        // Plugins: each its own product.
        .library(name: "CacheChainUserInfo", targets: ["CacheChainUserInfo"]),
        .library(name: "CacheChainMetrics", targets: ["CacheChainMetrics"]),
        .library(name: "CacheChainLogging", targets: ["CacheChainLogging"]),
        .library(name: "CacheChainCacheKey", targets: ["CacheChainCacheKey"]),
        .library(name: "CacheChainRedis", targets: ["CacheChainRedis"]),
        .library(name: "CacheChainEncryption", targets: ["CacheChainEncryption"]),
        // Adapters: each its own product, on the core and one outside library.
        .library(name: "CacheChainAsyncHTTPClient", targets: ["CacheChainAsyncHTTPClient"]),
        .library(name: "CacheChainOpenAPI", targets: ["CacheChainOpenAPI"]),
        .library(name: "CacheChainServiceLifecycle", targets: ["CacheChainServiceLifecycle"]),
        .library(name: "CacheChainVapor", targets: ["CacheChainVapor"]),
    ],
    // Pay only for what you use: the adapters on large packages sit behind traits, off by default, so a package that
    // caches URLSession or libcurl requests resolves none of SwiftNIO, AsyncHTTPClient or OpenAPI (Swift 6.2+). The
    // repository's own scripts build with --enable-all-traits (the tests, examples and `cachechain demo` use the
    // loopback origin).
    traits: [
        .trait(name: "AsyncHTTPClient", description: "CacheChainAsyncHTTPClient: CacheChainAHCTransport (resolves async-http-client and SwiftNIO)"),
        .trait(name: "OpenAPI", description: "CacheChainOpenAPI: HTTPCacheMiddleware (resolves swift-openapi-runtime)"),
        .trait(name: "ServiceLifecycle", description: "CacheChainServiceLifecycle: HTTPCacheService (resolves swift-service-lifecycle)"),
        .trait(name: "Vapor", description: "CacheChainVapor: `app.clients.use(.cacheChain(...))` for req.client and app.client (resolves vapor and its dependencies)"),
        .trait(name: "Loopback", description: "CacheChainLoopback, the SwiftNIO test origin of the tests, examples and `cachechain demo` (resolves SwiftNIO, NIOSSL, NIOHTTP2)"),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // One client span per request and W3C trace context on what the transports send (no package of its own).
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // HTTP/2 for the loopback origin (test/demo/benchmark support only; the transport is libcurl).
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Adapters (STYLE.md §4): an AsyncHTTPClient transport, an OpenAPI client middleware, a service-lifecycle
        // Service; the generator's build plugin and its AsyncHTTPClient and URLSession transports for the example
        // and the tests only (the generator now runs in the Examples/OpenAPICaching package; the tests and snippets
        // compile the code it generated, checked in).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Vapor's `Client` (req.client, app.client) through the cache: CacheChainVapor, behind the Vapor trait.
        .package(url: "https://github.com/vapor/vapor", from: "4.122.3"),
    ],
    targets: [
        // RFC 9111 as pure functions and values: no I/O, no clock reads.
        .target(name: "CacheChainPolicy", dependencies: [httpTypes], swiftSettings: strictSettings),
        // Abstractions: interceptor, pipeline, context, storage and transport protocols, currency types.
        .target(
            name: "CacheChainCore",
            dependencies: ["CacheChainPolicy", httpTypes, logging, tracing],
            swiftSettings: strictSettings
        ),
        // SQLite 3 (Debian: libsqlite3-dev): the disk backend's index.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // xxHash (XXH3 with run-time SIMD dispatch): the disk entries' integrity checksum.
        .systemLibrary(name: "CXXHash", pkgConfig: "libxxhash", providers: [.apt(["libxxhash-dev"])]),
        // Storage backends without a system library: memory, tiered.
        .target(name: "CacheChainStorage", dependencies: ["CacheChainCore", "CacheChainPolicy"], swiftSettings: strictSettings),
        // The disk backend: a SQLite index and entry files with an xxHash checksum.
        .target(
            name: "CacheChainDiskStorage",
            dependencies: ["CacheChainCore", "CacheChainPolicy", "CSQLite", "CXXHash"],
            swiftSettings: strictSettings
        ),
        // The built-in interceptors: cache policy, revalidation, storage decision, userInfo stamping.
        .target(
            name: "CacheChainInterceptors",
            dependencies: ["CacheChainCore", "CacheChainPolicy", logging, tracing],
            swiftSettings: strictSettings
        ),
        // The client and the default pipeline over memory and tiered storage: links no system library.
        .target(
            name: "CacheChainClient",
            dependencies: ["CacheChainCore", "CacheChainPolicy", "CacheChainStorage", "CacheChainInterceptors", httpTypes, logging, tracing],
            swiftSettings: strictSettings
        ),
        // Umbrella: the client and the disk backend, one import away.
        .target(
            name: "CacheChain",
            dependencies: [
                "CacheChainClient", "CacheChainCore", "CacheChainPolicy", "CacheChainStorage", "CacheChainDiskStorage",
                "CacheChainInterceptors", httpTypes,
            ],
            swiftSettings: strictSettings
        ),
        // URLSession and URLCache on Linux: CacheChainURLProtocol, usingCacheChain, CacheChainURLCache, the shared
        // default client; conversions for URLRequest, CachePolicy, HTTPURLResponse, CachedURLResponse.
        .target(
            name: "CacheChainFoundation",
            dependencies: ["CacheChain", "CacheChainCurl", logging, .product(name: "HTTPTypesFoundation", package: "swift-http-types")],
            swiftSettings: strictSettings
        ),
        // libcurl (Debian: libcurl4-openssl-dev) through typed shims for its variadic functions.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // The network transport: libcurl's multi interface on dedicated threads (one per core by default).
        .target(name: "CacheChainCurl", dependencies: ["CCurl", "CacheChainCore", "CacheChainPolicy", httpTypes, logging, tracing], swiftSettings: strictSettings),
        // A programmable HTTP/HTTPS origin on 127.0.0.1 (SwiftNIO + NIOSSL) for tests, the demo and benchmarks.
        .target(
            name: "CacheChainLoopback",
            dependencies: ["CacheChainCore", "CacheChainPolicy"] + nioHTTPServer,
            swiftSettings: strictSettings
        ),
        // The `cachechain batch` JSON-lines protocol (version 1): decoding, handshake, request mapping, replies.
        .target(
            name: "CacheChainBatch",
            dependencies: ["CacheChain", httpTypes, logging],
            swiftSettings: strictSettings
        ),
        // The command-line tool: `cachechain batch` (more subcommands to come).
        .executableTarget(
            name: "cachechain",
            dependencies: [
                "CacheChain", "CacheChainBatch", "CacheChainCurl", "CacheChainEncryption", "CacheChainLoopback", "CacheChainRedis", logging,
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        // Test support for users and for us: storage conformance suite, scripted transport, manual clock.
        .target(name: "CacheChainTesting", dependencies: ["CacheChainCore", "CacheChainPolicy"], swiftSettings: strictSettings),

        // Plugins (declared with explicit paths: `Plugins/` is also SwiftPM's folder for package plugins).
        // userInfo stamping: cached date, request id, custom stamps persisted with every entry.
        .target(name: "CacheChainUserInfo", dependencies: ["CacheChainCore"], path: "Plugins/CacheChainUserInfo", swiftSettings: strictSettings),
        // swift-metrics counters and a request timer fed by cache events.
        .target(
            name: "CacheChainMetrics",
            dependencies: ["CacheChainClient", "CacheChainCore", .product(name: "CoreMetrics", package: "swift-metrics")],
            path: "Plugins/CacheChainMetrics",
            swiftSettings: strictSettings
        ),
        // swift-log: one line per decision with its reason codes; never bodies, cookies or Authorization.
        .target(name: "CacheChainLogging", dependencies: ["CacheChainCore", "CacheChainPolicy", logging, httpTypes], path: "Plugins/CacheChainLogging", swiftSettings: strictSettings),
        // Custom cache keys: drop tracking/signing query parameters, sort them, fold chosen fields in.
        .target(name: "CacheChainCacheKey", dependencies: ["CacheChainCore", httpTypes], path: "Plugins/CacheChainCacheKey", swiftSettings: strictSettings),

        // hiredis (Debian: libhiredis-dev 0.14) through typed shims.
        .systemLibrary(name: "CHiredis", providers: [.apt(["libhiredis-dev"])]),  // no pkgConfig: its cflags carry a flag SwiftPM rejects
        // A shared storage backend on Redis.
        .target(
            name: "CacheChainRedis",
            dependencies: ["CHiredis", "CXXHash", "CacheChainCore", "CacheChainPolicy", httpTypes],
            path: "Plugins/CacheChainRedis",
            swiftSettings: strictSettings
        ),

        // OpenSSL 3 libcrypto (Debian: libssl-dev) through typed shims: EVP AES-256-GCM, EVP_KDF HKDF, HMAC, RAND.
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        // Encryption at rest: EncryptedStorage wraps any backend (AES-256-GCM envelopes, HMAC'd names, key providers).
        .target(
            name: "CacheChainEncryption",
            dependencies: ["COpenSSL", "CacheChainCore", "CacheChain", httpTypes],
            path: "Plugins/CacheChainEncryption",
            swiftSettings: strictSettings
        ),

        // Adapters at the edge (STYLE.md §4): each on the core and one outside library.
        // A transport over AsyncHTTPClient (SwiftNIO): CacheChain without libcurl.
        .target(
            name: "CacheChainAsyncHTTPClient",
            dependencies: [
                "CacheChainCore", httpTypes,
                guarded("AsyncHTTPClient", "async-http-client", by: "AsyncHTTPClient"),
                guarded("NIOCore", "swift-nio", by: "AsyncHTTPClient"),
                guarded("NIOHTTP1", "swift-nio", by: "AsyncHTTPClient"),
            ],
            swiftSettings: strictSettings
        ),
        // An OpenAPI client middleware: a CacheChain pipeline in front of any ClientTransport.
        .target(
            name: "CacheChainOpenAPI",
            dependencies: ["CacheChainClient", "CacheChainCore", httpTypes, guarded("OpenAPIRuntime", "swift-openapi-runtime", by: "OpenAPI")],
            swiftSettings: strictSettings
        ),
        // A swift-service-lifecycle Service that shuts a client down gracefully.
        .target(
            name: "CacheChainServiceLifecycle",
            dependencies: ["CacheChainClient", logging, guarded("ServiceLifecycle", "swift-service-lifecycle", by: "ServiceLifecycle")],
            swiftSettings: strictSettings
        ),
        // Vapor's `Client` over an HTTPCacheClient: `app.clients.use(.cacheChain(...))` makes req.client and app.client cache.
        .target(
            name: "CacheChainVapor",
            dependencies: [
                "CacheChainClient", "CacheChainCore", "CacheChainInterceptors", httpTypes, logging,
                guarded("Vapor", "vapor", by: "Vapor"),
                guarded("NIOCore", "swift-nio", by: "Vapor"),
                guarded("NIOHTTP1", "swift-nio", by: "Vapor"),
            ],
            swiftSettings: strictSettings
        ),

        // Release-mode benchmarks: CacheChain next to baselines measured in the same run (scripts/bench.sh).
        .executableTarget(
            name: "CacheChainBenchmarks",
            dependencies: [
                "CacheChain", "CacheChainTesting", "CacheChainCurl", "CacheChainLoopback", "CCurl", "CacheChainRedis", "CacheChainEncryption",
                "CSQLite", "CXXHash", "CacheChainFoundation", "CacheChainDiskStorage",
            ],
            path: "Benchmarks/CacheChainBenchmarks",
            swiftSettings: strictSettings
        ),

        // Examples: executables that run against the loopback origin, no network needed.
        .executableTarget(
            name: "QuickStart",
            dependencies: ["CacheChain", "CacheChainCurl", "CacheChainLoopback"],
            path: "Examples/QuickStart",
            swiftSettings: strictSettings
        ),

        .executableTarget(
            name: "CustomPipeline",
            dependencies: ["CacheChain", "CacheChainCurl", "CacheChainLoopback", "CacheChainUserInfo"],
            path: "Examples/CustomPipeline",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "WritingAnInterceptor",
            dependencies: ["CacheChain", "CacheChainCurl", "CacheChainLoopback", httpTypes],
            path: "Examples/WritingAnInterceptor",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "GraphQLCaching",
            dependencies: ["CacheChain", "CacheChainCurl", "CacheChainLoopback"],
            path: "Examples/GraphQLCaching",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "OfflineFirst",
            dependencies: ["CacheChain", "CacheChainCurl", "CacheChainLoopback"],
            path: "Examples/OfflineFirst",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "EncryptedHTTPSCache",
            dependencies: ["CacheChain", "CacheChainCurl", "CacheChainLoopback", "CacheChainEncryption"],
            path: "Examples/EncryptedHTTPSCache",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "StorageDecision",
            dependencies: ["CacheChain", "CacheChainCurl", "CacheChainLoopback"],
            path: "Examples/StorageDecision",
            swiftSettings: strictSettings
        ),

        .executableTarget(
            name: "URLSessionCaching",
            dependencies: ["CacheChain", "CacheChainCurl", "CacheChainFoundation", "CacheChainLoopback"],
            path: "Examples/URLSessionCaching",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "SharedRedisCache",
            dependencies: ["CacheChain", "CacheChainCurl", "CacheChainLoopback", "CacheChainRedis", "CacheChainTesting"],
            path: "Examples/SharedRedisCache",
            swiftSettings: strictSettings
        ),

        // Documentation snippets: `swift build` compiles every ```swift block of README.md, the DocC articles and
        // the `///` comments (the plugin extracts them; Tests/DocumentationSnippets/SnippetContext.swift says how).
        .executableTarget(
            name: "documentation-snippet-extractor",
            path: "Tests/DocumentationSnippetExtractor",
            swiftSettings: strictSettings
        ),
        .plugin(
            name: "DocumentationSnippetsPlugin",
            capability: .buildTool(),
            dependencies: ["documentation-snippet-extractor"],
            path: "Tests/DocumentationSnippetsPlugin"
        ),
        .target(
            name: "DocumentationSnippets",
            dependencies: [
                "CacheChain", "CacheChainClient", "CacheChainPolicy", "CacheChainCore", "CacheChainStorage", "CacheChainDiskStorage",
                "CacheChainInterceptors", "CacheChainTesting", "CacheChainFoundation", "CacheChainCurl", "CacheChainLoopback", "CacheChainBatch",
                "CacheChainUserInfo", "CacheChainMetrics", "CacheChainLogging", "CacheChainCacheKey", "CacheChainRedis",
                "CacheChainEncryption", "CacheChainAsyncHTTPClient", "CacheChainOpenAPI", "CacheChainServiceLifecycle", "CacheChainVapor", httpTypes,
                logging, tracing, guarded("Vapor", "vapor", by: "Vapor"),
                // The OpenAPI snippets' transport; their `Client` was generated from openapi.yaml (Generated/).
                guarded("OpenAPIAsyncHTTPClient", "swift-openapi-async-http-client", by: "OpenAPI"),
            ],
            path: "Tests/DocumentationSnippets",
            exclude: ["openapi.yaml", "openapi-generator-config.yaml"],
            // As a reader's package compiles them (Swift 6 mode), except that a warning is an error: a snippet
            // must compile cleanly (e.g. no `try` before a call that cannot throw).
            swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-warnings-as-errors"])],
            plugins: ["DocumentationSnippetsPlugin"]
        ),
        .executableTarget(
            name: "AsyncHTTPClientCaching",
            dependencies: ["CacheChain", "CacheChainAsyncHTTPClient", "CacheChainLoopback"],
            path: "Examples/AsyncHTTPClientCaching",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "VaporCaching",
            dependencies: [
                "CacheChain", "CacheChainCurl", "CacheChainLoopback", "CacheChainVapor", guarded("Vapor", "vapor", by: "Vapor"),
                guarded("AsyncHTTPClient", "async-http-client", by: "Vapor"),
            ],
            path: "Examples/VaporCaching",
            swiftSettings: strictSettings
        ),
        // OpenAPICaching is a package of its own (Examples/OpenAPICaching): it runs swift-openapi-generator's plugin,
        // which this package's consumers should never build.

        // libFuzzer targets for every parser (scripts/fuzz.sh builds them with -sanitize=fuzzer); built with the
        // package, the same executable writes seed corpora, replays inputs and runs a mutation smoke test.
        .target(name: "CLibFuzzerDriver", path: "Fuzz/CLibFuzzerDriver"),
        .executableTarget(
            name: "cachechain-fuzz",
            dependencies: [
                "CacheChainPolicy", "CacheChainCore", "CacheChainStorage", "CacheChainDiskStorage", "CacheChainCurl", "CacheChainBatch",
                "CacheChainEncryption",
                "CLibFuzzerDriver", httpTypes,
            ],
            path: "Fuzz/CacheChainFuzz",
            swiftSettings: strictSettings
        ),

        .testTarget(name: "CacheChainFuzzTests", dependencies: ["cachechain-fuzz", "CacheChainTesting"], swiftSettings: strictSettings),
        .testTarget(name: "CacheChainPolicyTests", dependencies: ["CacheChainPolicy", httpTypes], swiftSettings: strictSettings),
        .testTarget(
            name: "CacheChainCoreTests",
            dependencies: ["CacheChainCore", "CacheChainTesting"],
            swiftSettings: strictSettings
        ),
        // A child process for the disk backend's crash, multi-process and large-body tests.
        .executableTarget(
            name: "cachechain-storage-probe",
            dependencies: ["CacheChainStorage", "CacheChainDiskStorage", "CSQLite"],
            path: "Tests/CacheChainStorageProbe",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CacheChainStorageTests",
            dependencies: ["CacheChainStorage", "CacheChainDiskStorage", "CacheChainTesting", "CXXHash", "cachechain-storage-probe"],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        // A child process for the shared default client and the ephemeral preset (what they write, restarts).
        .executableTarget(
            name: "cachechain-foundation-probe",
            dependencies: ["CacheChainFoundation"],
            path: "Tests/CacheChainFoundationProbe",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CacheChainFoundationTests",
            dependencies: [
                "CacheChainFoundation", "CacheChainTesting", "CacheChainCurl", "CacheChainLoopback", "CacheChainStorage",
                "CacheChainEncryption", "cachechain-foundation-probe", httpTypes,
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CacheChainTests",
            dependencies: ["CacheChain", "CacheChainTesting", "CacheChainUserInfo"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CacheChainPluginTests",
            dependencies: [
                "CacheChain", "CacheChainTesting", "CacheChainUserInfo", "CacheChainMetrics", "CacheChainLogging",
                "CacheChainCacheKey", httpTypes,
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CacheChainRedisTests",
            dependencies: [
                "CacheChain", "CacheChainRedis", "CacheChainTesting", "CacheChainCurl", "CacheChainLoopback", "CacheChainEncryption",
                httpTypes, logging,
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CacheChainEncryptionTests",
            dependencies: [
                "CacheChainEncryption", "CacheChain", "CacheChainStorage", "CacheChainDiskStorage", "CacheChainTesting", "CacheChainCurl",
                "CacheChainLoopback", httpTypes,
            ],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CacheChainLoopbackTests",
            dependencies: ["CacheChainLoopback"] + nioHTTPServer,
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CacheChainBatchTests",
            dependencies: ["CacheChainBatch", "CacheChain", "CacheChainTesting", "CacheChainLoopback", httpTypes],
            swiftSettings: strictSettings
        ),
        // The shared end-to-end transport suite: every scenario through CurlTransport and CacheChainAHCTransport.
        .testTarget(
            name: "CacheChainIntegrationTests",
            dependencies: [
                "CacheChain", "CacheChainCurl", "CacheChainAsyncHTTPClient", "CacheChainLoopback", "CacheChainTesting", httpTypes, logging,
                tracing, .product(name: "InMemoryLogging", package: "swift-log"),
                guarded("AsyncHTTPClient", "async-http-client", by: "AsyncHTTPClient"),
                guarded("NIOCore", "swift-nio", by: "AsyncHTTPClient"),
                guarded("NIOHTTP1", "swift-nio", by: "AsyncHTTPClient"),
                guarded("NIOPosix", "swift-nio", by: "AsyncHTTPClient"),
                guarded("NIOSSL", "swift-nio-ssl", by: "AsyncHTTPClient"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CacheChainOpenAPITests",
            dependencies: [
                "CacheChainOpenAPI", "CacheChain", "CacheChainLoopback", "CacheChainTesting", httpTypes,
                guarded("OpenAPIRuntime", "swift-openapi-runtime", by: "OpenAPI"),
                guarded("OpenAPIAsyncHTTPClient", "swift-openapi-async-http-client", by: "OpenAPI"),
                guarded("OpenAPIURLSession", "swift-openapi-urlsession", by: "OpenAPI"),
                guarded("NIOCore", "swift-nio", by: "OpenAPI"),
            ],
            // Catalog's `Client` was generated from openapi.yaml by swift-openapi-generator (Generated/).
            exclude: ["openapi.yaml", "openapi-generator-config.yaml"],
            swiftSettings: strictSettings
        ),
        // A real Vapor application on 127.0.0.1 whose routes call the loopback origin through req.client (libcurl).
        .testTarget(
            name: "CacheChainVaporTests",
            dependencies: [
                "CacheChainVapor", "CacheChain", "CacheChainCurl", "CacheChainLoopback", "CacheChainTesting", httpTypes, logging,
                guarded("Vapor", "vapor", by: "Vapor"),
                guarded("NIOCore", "swift-nio", by: "Vapor"),
                guarded("NIOHTTP1", "swift-nio", by: "Vapor"),
                guarded("AsyncHTTPClient", "async-http-client", by: "Vapor"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CacheChainServiceLifecycleTests",
            dependencies: [
                "CacheChainServiceLifecycle", "CacheChain", "CacheChainCurl", "CacheChainLoopback", "CacheChainTesting", logging,
                guarded("ServiceLifecycle", "swift-service-lifecycle", by: "ServiceLifecycle"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)

// `swift package generate-documentation` for every library product (scripts/check-docs.sh sets CACHECHAIN_DOCC=1): a
// package-level dependency cannot sit behind a trait, and a consumer should not fetch a documentation plugin.
if Context.environment["CACHECHAIN_DOCC"] == "1" {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}
