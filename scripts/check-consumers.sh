#!/usr/bin/env bash
# Pay only for what you use: one minimal consumer package per adoption path (URLSession, the libcurl client,
# AsyncHTTPClient, OpenAPI, Vapor), each depending on this repository by path with the traits a user of that path sets,
# as the README says. For each it prints how many packages SwiftPM resolved (Package.resolved's pins) and fails
# when a package that path must not pay for appears (SwiftNIO or AsyncHTTPClient or OpenAPI for URLSession and
# libcurl; libcurl-free paths never pull OpenAPI's, and nobody gets the OpenAPI generator or the DocC plugin).
# With --build it also builds each consumer (debug, its own scratch directory), prints the time of that first build,
# and fails on any warning from CacheChain's sources and when the AsyncHTTPClient, OpenAPI or Vapor consumer links libcurl.
# Run by scripts/test.sh (resolution only: about a minute); `--build` takes several minutes per consumer.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
name="$(basename "$repo")"   # a path dependency's identity is its directory's name
build=false
if [ "${1:-}" = "--build" ]; then build=true; fi
scratch="${CACHECHAIN_CONSUMERS_DIR:-${TMPDIR:-/tmp}/cachechain-consumers}"
mkdir -p "$scratch"

# consumer PATH TRAITS PRODUCTS FORBIDDEN-REGEX SOURCE
consumer() {
    local path="$1" traits="$2" products="$3" forbidden="$4" source="$5"
    local dir="$scratch/$path"
    rm -rf "$dir/Package.swift" "$dir/Sources" "$dir/Package.resolved"
    mkdir -p "$dir/Sources/Consumer"
    local deps=""
    for product in $products; do deps+=".product(name: \"$product\", package: \"$name\"), "; done
    cat >"$dir/Package.swift" <<MANIFEST
// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Consumer",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "$repo", traits: [$traits])],
    targets: [.executableTarget(name: "Consumer", dependencies: [$deps], swiftSettings: [.swiftLanguageMode(.v6)])]
)
MANIFEST
    printf '%s\n' "$source" >"$dir/Sources/Consumer/main.swift"
    if ! swift package --package-path "$dir" --scratch-path "$dir/.build" resolve >"$dir/resolve.log" 2>&1; then
        echo "consumer $path: resolution failed:"; cat "$dir/resolve.log"; return 1
    fi
    local pins=()
    if [ -f "$dir/Package.resolved" ]; then
        mapfile -t pins < <(grep -o '"identity" : "[^"]*"' "$dir/Package.resolved" | sed 's/.*: "//; s/"$//' | sort)
    fi
    echo "consumer $path (traits: [${traits}]): ${#pins[@]} packages resolved: ${pins[*]}"
    local bad
    bad="$(printf '%s\n' "${pins[@]}" | grep -E -i "$forbidden" || true)"
    if [ -n "$bad" ]; then
        echo "consumer $path: resolved $(echo "$bad" | tr '\n' ' ')which this path must not pay for"; return 1
    fi
    if $build; then
        local start end
        start=$(date +%s)
        if ! swift build --package-path "$dir" --scratch-path "$dir/.build" >"$dir/build.log" 2>&1; then
            echo "consumer $path: build failed:"; tail -n 40 "$dir/build.log"; return 1
        fi
        end=$(date +%s)
        local warnings
        warnings="$(grep -E "^$repo/.*warning:" "$dir/build.log" | sort -u || true)"
        echo "consumer $path: first debug build $((end - start)) s, $(grep -c 'Compiling' "$dir/build.log" || true) compile steps"
        if [ -n "$warnings" ]; then echo "consumer $path: CacheChain warned in a consumer's build:"; echo "$warnings"; return 1; fi
        if [ "$path" = asynchttpclient ] || [ "$path" = openapi ] || [ "$path" = vapor-app ]; then
            if ldd "$(swift build --package-path "$dir" --scratch-path "$dir/.build" --show-bin-path)/Consumer" | grep -q libcurl; then
                echo "consumer $path: links libcurl"; return 1
            fi
        fi
    fi
}

never='swift-openapi-generator|openapikit|yams|swift-docc-plugin'
heavy="swift-nio|async-http-client|swift-openapi|$never"
failed=0
consumer urlsession '' "CacheChain CacheChainFoundation" "$heavy" '
import CacheChain
import CacheChainFoundation
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let session = URLSession(configuration: .default.usingCacheChain(.ephemeral()))
print(session.configuration.protocolClasses?.count ?? 0)' || failed=1
consumer libcurl '' "CacheChain CacheChainCurl" "$heavy" '
import CacheChain
import CacheChainCurl

let client = HTTPCacheClient(transport: CurlTransport())
print(client.configuration.isRequestCoalescingEnabled)
try await client.shutdown()' || failed=1
consumer asynchttpclient '"AsyncHTTPClient"' "CacheChainClient CacheChainAsyncHTTPClient" "swift-openapi|$never" '
import CacheChainAsyncHTTPClient
import CacheChainClient

let client = HTTPCacheClient(transport: CacheChainAHCTransport())
print(client.configuration.isRequestCoalescingEnabled)
try await client.shutdown()' || failed=1
consumer openapi '"OpenAPI"' "CacheChainClient CacheChainOpenAPI" "swift-nio|async-http-client|$never" '
import CacheChainClient
import CacheChainOpenAPI

let middleware = HTTPCacheMiddleware()
print(type(of: middleware))' || failed=1
# (Not named "vapor": a root package whose identity is vapor hides the vapor dependency from resolution.)
consumer vapor-app '"Vapor"' "CacheChainClient CacheChainVapor" "swift-openapi|$never" '
import CacheChainClient
import CacheChainVapor
import Vapor

func configure(_ app: Application, cache: HTTPCacheClient) {
    app.clients.use(.cacheChain(cache))
}
print(type(of: CacheChainVaporClient.self))' || failed=1
if [ "$failed" -ne 0 ]; then
    echo "check-consumers: a consumer resolved, built or linked what its path must not pay for (see above)"
    exit 1
fi
echo "check-consumers: every adoption path resolves only what it uses"
