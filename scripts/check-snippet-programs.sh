#!/usr/bin/env bash
# Compiles every complete program of the documentation as a reader who pastes it gets it: alone, as the main.swift
# of an executable (top-level code, so `return` at top level or a missing import fails), against the modules the
# last `swift build` made. A complete program is a ```swift block that imports CacheChain or CacheChainClient (the
# DocumentationSnippets target also compiles it, inside a function, with the others). The OpenAPI programs get the
# `Client` swift-openapi-generator made from Tests/DocumentationSnippets/openapi.yaml (checked in under Generated/),
# as a reader's target with the generator plugin would. Run by scripts/test.sh after the build; about 5 s per program, two at a time.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(swift build --show-bin-path "$@")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$bin/documentation-snippet-extractor" --programs "$PWD" "$work/programs"

# Module maps of the package's C modules and of its dependencies' (SwiftPM passes the same to its own builds).
flags=(-typecheck -swift-version 6 -warnings-as-errors -module-name Program -I "$bin/Modules")
while IFS= read -r map; do flags+=(-Xcc "-fmodule-map-file=$map"); done < <(
    { find Sources Fuzz -name module.modulemap; find "$bin" -maxdepth 2 -name module.modulemap; find .build/checkouts -path '*/include/module.modulemap'; } 2>/dev/null | sort -u)
generated="Tests/DocumentationSnippets/Generated"

check() {
    local name="$1" where="$2" extra=()
    if grep -q 'Servers\.\|Client(serverURL' "$work/programs/$name/main.swift" && [ -n "$generated" ]; then
        extra=("$generated"/*.swift)
    fi
    if ! swiftc "${flags[@]}" "$work/programs/$name/main.swift" "${extra[@]}" >"$work/$name.log" 2>&1; then
        echo "=== $where: does not compile as a main.swift (as a reader pastes it):"
        cat "$work/$name.log"
        return 1
    fi
}
count=$(wc -l <"$work/programs/programs.txt")
failed=0
while read -r name where; do
    check "$name" "$where" &
    if (( $(jobs -r | wc -l) >= 2 )); then wait -n || failed=$((failed + 1)); fi
done <"$work/programs/programs.txt"
while (( $(jobs -r | wc -l) > 0 )); do wait -n || failed=$((failed + 1)); done
if [ "$failed" -ne 0 ]; then
    echo "check-snippet-programs: $failed of $count complete programs do not compile as main.swift"
    exit 1
fi
echo "check-snippet-programs: all $count complete programs of the documentation compile as main.swift"
