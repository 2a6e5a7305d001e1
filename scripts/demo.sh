#!/usr/bin/env bash
# The README's demo command: installs what the build needs, then runs the walk-through against a
# loopback origin it starts itself (no network needed).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
swift run QuickStart "$@"
