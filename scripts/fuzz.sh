#!/usr/bin/env bash
# Fuzzes every parser with libFuzzer: Cache-Control, HTTP-date, response heads (Age, Vary, Content-Length…),
# batch input lines, disk entry files, index rows and encrypted envelopes (`cachechain-fuzz list`).
#
#   scripts/fuzz.sh                         # every target, 10,000,000 runs each, release build
#   scripts/fuzz.sh --runs 1000000 envelope # one target, a million runs
#   scripts/fuzz.sh --seconds 600           # every target, ten minutes each
#   scripts/fuzz.sh --smoke                 # every target for 5 s, debug build (checks the libFuzzer build)
#
# The test suite (so CI) runs every target without libFuzzer: its seeds, 3,000 random mutations of them and
# Fuzz/Regressions (FuzzTargetTests, a few seconds).
#
# The fuzzer is `cachechain-fuzz` built with -sanitize=fuzzer,address into .build-fuzz (debug) or
# .build-fuzz-release. Corpora grow in .build-fuzz/corpus/<target> (seeded with valid inputs and with
# Fuzz/Regressions/<target>, the inputs of past findings); a finding is written to .build-fuzz/findings/
# and fails the script. To keep one as a regression test, copy it into Fuzz/Regressions/<target>/ (the test
# suite replays that folder) and fix the bug.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=10000000
seconds=""
configuration=release
targets=()
while [ "$#" -gt 0 ]; do
    case "$1" in
        --runs) runs="$2"; shift 2 ;;
        --seconds) seconds="$2"; shift 2 ;;
        --smoke) seconds=5; configuration=debug; shift ;;
        --debug) configuration=debug; shift ;;
        -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
        -*) echo "fuzz.sh: unknown option $1" >&2; exit 64 ;;
        *) targets+=("$1"); shift ;;
    esac
done

scratch=.build-fuzz
[ "$configuration" = release ] && scratch=.build-fuzz-release
# SwiftPM applies -Xswiftc to the documentation plugin's host tool too, whose link then fails for want of a
# fuzz entry point; that does not stop the build of the product (the exit status is the product's), so the
# log is shown only when the build fails.
mkdir -p .build-fuzz
if ! swift build -c "$configuration" --product cachechain-fuzz --scratch-path "$scratch" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DCACHECHAIN_LIBFUZZER -Xswiftc -use-ld=lld >.build-fuzz/build.log 2>&1; then
    grep -v "Cannot export local symbol" .build-fuzz/build.log >&2
    echo "fuzz.sh: building the fuzzer failed (log: .build-fuzz/build.log)" >&2
    exit 1
fi
fuzzer="$scratch/$configuration/cachechain-fuzz"

# Seeds come from the ordinary build of the same executable (libFuzzer's build hands main to libFuzzer).
swift build --product cachechain-fuzz >/dev/null
replayer="$(swift build --show-bin-path)/cachechain-fuzz"
mkdir -p .build-fuzz/corpus .build-fuzz/findings
"$replayer" seeds .build-fuzz/corpus
[ "${#targets[@]}" -eq 0 ] && mapfile -t targets < <("$replayer" list)

# Recording the stack of every allocation costs ASan a third of each run; a finding's report still has the
# crash stack (set ASAN_OPTIONS yourself for allocation stacks too).
export ASAN_OPTIONS="${ASAN_OPTIONS:-malloc_context_size=0}"
failed=0
for target in "${targets[@]}"; do
    limit=(-runs="$runs")
    [ -n "$seconds" ] && limit=(-max_total_time="$seconds")
    regressions=()
    [ -d "Fuzz/Regressions/$target" ] && regressions=("Fuzz/Regressions/$target")
    # Text inputs stay short (longer ones only slow the run); binary formats need room for bodies past the
    # in-memory limits the targets set (1 KiB for entry files, 4 KiB for the envelope spool).
    case "$target" in
        disk-entry|index-row|envelope) max_len=16384 ;;
        *) max_len=4096 ;;
    esac
    log=".build-fuzz/findings/$target.log"
    started=$(date +%s)
    if CACHECHAIN_FUZZ_TARGET="$target" "$fuzzer" "${limit[@]}" -max_len="$max_len" -rss_limit_mb=2048 -timeout=30 \
        -print_final_stats=1 -artifact_prefix=".build-fuzz/findings/$target-" \
        ".build-fuzz/corpus/$target" "${regressions[@]}" >"$log" 2>&1; then
        executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
        echo "$target: ${executed:-?} runs in $(( $(date +%s) - started )) s (${rate:-?}/s), 0 crashes"
    else
        echo "$target: FAILED, see $log and .build-fuzz/findings/$target-*"
        grep -E "Swift runtime failure|Fatal error|Precondition failed|ERROR|SUMMARY" "$log" | head -5 || true
        failed=1
    fi
done
exit "$failed"
