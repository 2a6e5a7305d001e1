#!/usr/bin/env bash
# The README's test command: installs what the build needs, then builds and runs every test
# (unit and loopback integration tests). Extra arguments go to `swift test` (e.g. --filter Policy).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
swift build --build-tests
swift test --skip-build "$@"
