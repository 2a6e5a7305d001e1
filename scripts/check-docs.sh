#!/usr/bin/env bash
# Builds the DocC documentation of every library product with swift-docc-plugin and fails on any DocC warning
# (an unresolved ``symbol`` link, a missing landing article, …). Each product's landing article is
# Sources/<Module>/Docs.docc/<Module>.md (Plugins/<Module>/… for the plugins); its Swift snippet is compiled by the
# build like every other documentation snippet. Called by scripts/test.sh; the archives go to .build/docs.
set -euo pipefail
cd "$(dirname "$0")/.."
products=(
    CacheChain CacheChainClient CacheChainPolicy CacheChainCore CacheChainStorage CacheChainDiskStorage
    CacheChainInterceptors CacheChainTesting CacheChainFoundation CacheChainCurl CacheChainLoopback CacheChainBatch
    CacheChainUserInfo CacheChainMetrics CacheChainLogging CacheChainCacheKey CacheChainRedis CacheChainEncryption
    CacheChainAsyncHTTPClient CacheChainOpenAPI CacheChainServiceLifecycle CacheChainVapor
)
# Every library product of the manifest is in the list above (a new product must get documentation too).
declared="$(grep -oE '\.library\(name: "[A-Za-z]+"' Package.swift | sed -E 's/.*"(.*)"/\1/' | sort)"
listed="$(printf '%s\n' "${products[@]}" | sort)"
if [ "$declared" != "$listed" ]; then
    echo "check-docs: the library products of Package.swift and the list in scripts/check-docs.sh differ:"
    diff <(echo "$declared") <(echo "$listed") || true
    exit 1
fi
targets=()
for product in "${products[@]}"; do
    article="$(ls Sources/"$product"/Docs.docc/"$product".md Plugins/"$product"/Docs.docc/"$product".md 2>/dev/null || true)"
    if [ -z "$article" ]; then
        echo "check-docs: $product has no landing article (Sources/$product/Docs.docc/$product.md)"; exit 1
    fi
    grep -q '^```swift' "$article" || { echo "check-docs: $article has no Swift snippet"; exit 1; }
    targets+=(--target "$product")
done
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
# --warnings-as-errors: DocC turns each of its warnings into an error, so any warning fails the command.
generate() {
    # CACHECHAIN_DOCC=1 adds swift-docc-plugin to the manifest (consumers never fetch it); every trait on, so the
    # adapters' documentation is built.
    CACHECHAIN_DOCC=1 swift package --disable-sandbox --enable-all-traits generate-documentation "${targets[@]}" --output-path .build/docs \
        --warnings-as-errors >"$log" 2>&1
}
status=0
generate || status=$?
# A crash of the tool itself (seen once: swift-package died of SIGSEGV in libdispatch on a fresh clone, and the next
# run passed) is retried once; a documentation error (exit 1) is not.
if [ "$status" -gt 128 ]; then
    echo "check-docs: swift package crashed (exit $status, signal $((status - 128))); retrying once"
    status=0
    generate || status=$?
fi
if [ "$status" -ne 0 ]; then
    grep -A 3 -E '^error:' "$log" || tail -n 40 "$log"
    echo "check-docs: FAILED (exit $status)"
    exit 1
fi
echo "check-docs: ok (${#products[@]} products, no warnings)"
