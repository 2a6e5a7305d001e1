#!/usr/bin/env bash
# Installs the C libraries CacheChain builds against (Debian/Ubuntu), only when they are missing.
# Safe to run repeatedly; needs root (or sudo) the first time.
set -euo pipefail

packages=(libcurl4-openssl-dev libssl-dev pkg-config libhiredis-dev redis-server libsqlite3-dev libxxhash-dev)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
echo "cachechain: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >&2
