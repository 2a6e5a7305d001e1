#!/usr/bin/env bash
# Products by what they link: a scratch package that depends only on the CacheChainClient product (the client,
# the pipeline, the built-in interceptors, memory and tiered storage) builds, runs a MISS then a HIT through a
# transport of its own, and its executable links none of libcurl, libsqlite3, libxxhash or OpenSSL's libcrypto
# (checked with ldd). Called by scripts/test.sh after the test suite; takes a few minutes on a clean clone (it
# builds those targets again, in .build/memory-only-check).
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
scratch="$repo/.build/memory-only-check"
package="$scratch/package"
mkdir -p "$package/Sources/MemoryOnly"

# The dependency's identity is its directory's name (a clone may be named anything).
cat >"$package/Package.swift" <<MANIFEST
// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "MemoryOnly",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "$repo")],
    targets: [
        .executableTarget(
            name: "MemoryOnly",
            dependencies: [.product(name: "CacheChainClient", package: "$(basename "$repo")")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
MANIFEST

cat >"$package/Sources/MemoryOnly/main.swift" <<'SOURCE'
import CacheChainClient
import Synchronization

/// An origin in the process: every answer may be cached for a minute.
final class InProcessOrigin: HTTPTransport {
    let requests = Atomic<Int>(0)

    func send(_ request: PipelineRequest, context: InterceptorContext) async throws -> PipelineResponse {
        requests.add(1, ordering: .relaxed)
        var head = HTTPResponse(status: .ok)
        head.headerFields[.cacheControl] = "max-age=60"
        return PipelineResponse(head: head, body: PipelineBody(string: "hello"))
    }
}

let origin = InProcessOrigin()
let client = HTTPCacheClient(transport: origin)
let request = try HTTPRequest(url: "https://example.com/greeting")
let first = try await client.data(for: request)
let second = try await client.data(for: request)
try await client.shutdown()
let asked = origin.requests.load(ordering: .relaxed)
print("memory-only client: \(first.cacheStatus), then \(second.cacheStatus); origin asked \(asked) time(s)")
struct UnexpectedAnswer: Error, CustomStringConvertible {
    var description: String { "expected a MISS, then a HIT answered from memory" }
}
guard first.cacheStatus == .miss, second.cacheStatus == .hit, asked == 1, second.body.string == "hello" else {
    throw UnexpectedAnswer()
}
SOURCE

swift build --package-path "$package" --scratch-path "$scratch/build"
executable="$(swift build --package-path "$package" --scratch-path "$scratch/build" --show-bin-path)/MemoryOnly"
"$executable"
linked="$(ldd "$executable")"
if grep -E 'libcurl|libsqlite3|libxxhash|libcrypto|libssl|libhiredis' <<<"$linked"; then
    echo "memory-only check: FAILED: the executable of a package depending only on CacheChainClient links the libraries above"
    exit 1
fi
echo "memory-only check: ok (ldd lists none of libcurl, libsqlite3, libxxhash, libcrypto, libssl, libhiredis)"
