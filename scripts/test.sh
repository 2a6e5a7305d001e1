#!/usr/bin/env bash
# The README's test command: checks the documentation's links, installs what the build needs, builds everything,
# compiles the documentation's complete programs as main.swift files, runs every test (unit
# and loopback integration tests), then runs each example and checks its output, and checks that a package
# depending only on CacheChainClient links no system library (scripts/check-memory-only.sh), and builds the DocC
# documentation of every library product with no warning (scripts/check-docs.sh). With CI=true it also builds
# the libFuzzer fuzzer and runs every fuzz target for about 5 s (scripts/fuzz.sh --smoke, ~3 min).
# Extra arguments go to `swift test` (e.g. --filter Policy) and skip the example checks.
#
# The build also checks the documentation and the manifest:
# - every ```swift block of README.md, the DocC articles and the `///` comments is compiled (the
#   DocumentationSnippets target, filled by the DocumentationSnippetsPlugin build plugin), and an error in
#   one names the document and line;
# - every target imports only modules it declares as dependencies (so `swift build --target X` works on a
#   clean clone for every X).
# The repository builds with every package trait on (--enable-all-traits): the tests, examples and `cachechain demo`
# use the loopback origin (trait Loopback) and every adapter; a consumer's default traits are light.
set -euo pipefail
cd "$(dirname "$0")/.."
# Every link of the README, the guides and the DocC articles resolves (no build needed: it fails fast).
python3 ./scripts/check-links.py
./scripts/install-deps.sh
swift build --build-tests --explicit-target-dependency-import-check error --enable-all-traits
# Every complete program of the documentation compiles alone as a main.swift, as a reader pastes it.
./scripts/check-snippet-programs.sh
# A minimal consumer per adoption path resolves only what that path uses (packages counted, forbidden ones fail).
./scripts/check-consumers.sh
# At most 8 tests at once (CACHECHAIN_TEST_WIDTH): Swift Testing otherwise starts every test together, and on 2
# cores the CPU-heavy debug-built ones (NIO/TLS origins, AsyncHTTPClient, disk stress) starved the network tests
# past their deadlines (AsyncHTTPClient's 20 s and 60 s ones timed out at load 8; with 8 at once the suite passes,
# and in less time: 89 s instead of 115 s).
# The run's output is kept, so that a failure is summed up at the very end: a CI log's tail names what failed.
test_log="$(mktemp)"
trap 'rm -f "$test_log"' EXIT
if ! swift test --skip-build --enable-all-traits --experimental-maximum-parallelization-width "${CACHECHAIN_TEST_WIDTH:-8}" "$@" 2>&1 | tee "$test_log"; then
    echo
    echo "=== the test run failed; its failures and issues (the whole log is above) ==="
    grep -E -A4 '✘|recorded an issue|error: |Fatal error|Exited with' "$test_log" | grep -v -E 'cache (lookup|store) failed' | tail -n 80
    exit 1
fi
if [ "$#" -eq 0 ]; then
    ./scripts/check-examples.sh
    ./scripts/check-memory-only.sh
    ./scripts/check-docs.sh
    if [ "${CI:-}" = true ]; then
        ./scripts/fuzz.sh --smoke
    fi
fi
