#!/usr/bin/env bash
# Builds the benchmarks in release mode and prints CacheChain's figures next to same-run baselines.
# Arguments: --quick (a smoke run of the paired rows), --all (the detailed scenarios too).
# BENCH_ITERATIONS=N overrides the detailed scenarios' iteration count.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
swift build -c release --product CacheChainBenchmarks
"$(swift build -c release --show-bin-path)/CacheChainBenchmarks" "$@"
