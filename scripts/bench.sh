#!/usr/bin/env bash
# Builds the benchmarks in release mode and prints CacheChain's figures next to same-run baselines.
# Arguments: --quick (a smoke run of the paired rows), --all (the detailed scenarios too).
# BENCH_ITERATIONS=N overrides the detailed scenarios' iteration count.
#
#   --against COMMIT   also runs every paired row against COMMIT's library (issue 42): the same Benchmarks/ harness is
#                      built in release mode against that commit in .build-against/COMMIT (kept for the next run)
#                      and runs as a worker in lockstep; each row prints new / old per pair with its spread, and the
#                      summary names every row slower than the previous build beyond its spread.
#   --loads idle,busy  runs the paired rows once per load: `idle` as the machine is, `busy` with a process spinning
#                      on one core for the whole run (a quiet machine and a busy one behave differently).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh

against=""
loads="idle"
passed=()
while [ "$#" -gt 0 ]; do
    case "$1" in
        --against) against="$2"; shift 2 ;;
        --loads) loads="$2"; shift 2 ;;
        *) passed+=("$1"); shift ;;
    esac
done

swift build -c release --enable-all-traits --product CacheChainBenchmarks
binary="$(swift build -c release --enable-all-traits --show-bin-path)/CacheChainBenchmarks"

if [ -n "$against" ]; then
    commit="$(git rev-parse --short "$against")"
    dir=".build-against/$commit"
    mkdir -p "$dir/src"
    if [ ! -f "$dir/src/Package.swift" ]; then
        git archive "$commit" | tar -x -C "$dir/src"
    fi
    # The harness is this tree's (its rows must match), built against the commit's library; its target declaration
    # is this tree's too.
    rm -rf "$dir/src/Benchmarks"
    cp -R Benchmarks "$dir/src/Benchmarks"
    # Names renamed since (0.3: HTTPBody → PipelineBody): the harness uses today's, so an older library gets an alias.
    if ! grep -rq "struct PipelineBody" "$dir/src/Sources"; then
        printf 'import CacheChain\n/// The older library names its body type HTTPBody.\ntypealias PipelineBody = HTTPBody\n' \
            > "$dir/src/Benchmarks/CacheChainBenchmarks/OlderLibraryNames.swift"
    fi
    python3 - "$dir/src/Package.swift" <<'PY'
import re, sys
ours = open("Package.swift").read()
path = sys.argv[1]
theirs = open(path).read()
pattern = re.compile(r'\n        \.executableTarget\(\n            name: "CacheChainBenchmarks",.*?\n        \),\n', re.S)
block = pattern.search(ours).group(0)
theirs, count = pattern.subn(lambda _: block, theirs)
assert count == 1, "the previous build's Package.swift declares no CacheChainBenchmarks target"
open(path, "w").write(theirs)
PY
    echo "building the benchmarks against $commit (release, in $dir; kept for later runs)" >&2
    swift build -c release --product CacheChainBenchmarks --package-path "$dir/src" --scratch-path "$dir/build"
    export BENCH_AGAINST="$PWD/$dir/build/release/CacheChainBenchmarks"
fi

for load in ${loads//,/ }; do
    spinner=""
    if [ "$load" = busy ]; then
        ( while :; do :; done ) &
        spinner=$!
        echo "== load: busy (a process spinning on one core, pid $spinner) =="
    else
        echo "== load: idle (uptime: $(uptime)) =="
    fi
    status=0
    "$binary" ${passed[@]+"${passed[@]}"} || status=$?
    if [ -n "$spinner" ]; then kill "$spinner" 2>/dev/null || true; fi
    [ "$status" -eq 0 ] || exit "$status"
done
