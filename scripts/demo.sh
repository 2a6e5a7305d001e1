#!/usr/bin/env bash
# The README's demo command: installs what the build needs, then runs `cachechain demo`, the walk-through
# against loopback origins it starts itself (no network needed): MISS, HIT, stale, 304 REVALIDATED,
# encrypted HTTPS on disk, purge.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
# --enable-all-traits: the demo runs the loopback origin (trait Loopback); the same traits as ./scripts/test.sh, so
# the two commands share one build.
swift run --enable-all-traits cachechain demo "$@"
