#!/usr/bin/env bash
# The README's test command: installs what the build needs, builds everything, runs every test (unit
# and loopback integration tests), then runs each example and checks its output.
# Extra arguments go to `swift test` (e.g. --filter Policy) and skip the example checks.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
swift build --build-tests
swift test --skip-build "$@"
if [ "$#" -eq 0 ]; then
    ./scripts/check-examples.sh
fi
