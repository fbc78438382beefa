#!/usr/bin/env bash
# Sets up everything Horizon needs on a fresh Debian/Ubuntu machine with Node >= 20, and is quick to
# rerun: Debian's chromium (its SwiftShader Vulkan driver is the WebGPU device on machines without a
# GPU, and it runs the browser tests), pnpm 12.4.2, and the workspace's dependencies from the lockfile.
#   bash scripts/setup.sh           # what training and the tests need
#   bash scripts/setup.sh --bench   # also PyTorch (CPU) for side-by-side benchmarks and golden fixtures
set -euo pipefail
cd "$(dirname "$0")/.."

want_bench=0
for arg in "$@"; do
  case "$arg" in
    --bench) want_bench=1 ;;
    *) echo "setup.sh: unknown option $arg (known: --bench)" >&2; exit 2 ;;
  esac
done

say() { printf '[setup] %s\n' "$*"; }

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ]; then
  echo "setup.sh: Horizon needs Node.js 20 or newer (found: $(node --version 2>/dev/null || echo none)). Install it from https://nodejs.org or your package manager." >&2
  exit 1
fi

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

apt_packages=(chromium)
[ "$want_bench" -eq 1 ] && apt_packages+=(python3-torch libopenblas0-pthread)
if command -v apt-get >/dev/null 2>&1; then
  missing=()
  # `dpkg -s` also succeeds for a removed package whose config files remain; ask for "installed".
  for p in "${apt_packages[@]}"; do
    [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]} (apt)"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
else
  say "not a Debian/Ubuntu machine: install Chromium (for its SwiftShader driver and the browser tests) yourself if you have no GPU"
fi

if [ "$(pnpm --version 2>/dev/null || true)" != "12.4.2" ]; then
  say "installing pnpm 12.4.2 (npm)"
  if ! npm install -g pnpm@12.4.2 >/dev/null 2>&1; then as_root npm install -g pnpm@12.4.2 >/dev/null; fi
fi

say "installing dependencies (pnpm, from the lockfile)"
pnpm install --frozen-lockfile >/dev/null
say "ready"
