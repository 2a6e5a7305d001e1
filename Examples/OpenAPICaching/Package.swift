// swift-tools-version:6.1
// The OpenAPI example is a package of its own: it runs swift-openapi-generator's build plugin, which CacheChain's
// own package (and so its consumers) never loads. It depends on the repository by path, with the OpenAPI trait (and
// Loopback, for the origin it starts), as a user's package would with `from: "0.2.0"`.
import PackageDescription

/// A path dependency's identity is its directory's name (a clone may be named anything).
let repository = Context.packageDirectory.split(separator: "/").dropLast(2).last.map(String.init) ?? "CacheChain"

let package = Package(
    name: "OpenAPICaching",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: "../..", traits: ["OpenAPI", "Loopback"]),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
    ],
    targets: [
        .executableTarget(
            name: "OpenAPICaching",
            dependencies: [
                .product(name: "CacheChain", package: repository),
                .product(name: "CacheChainOpenAPI", package: repository),
                .product(name: "CacheChainLoopback", package: repository),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
    ]
)
