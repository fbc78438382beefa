#!/usr/bin/env bash
# Sets up everything Horizon needs on a fresh Debian/Ubuntu machine with Node >= 20, and is quick to
# rerun: the system Vulkan loader (libvulkan1: Dawn opens it; chromium's private copy is not used),
# Debian's chromium (its SwiftShader Vulkan driver is the WebGPU device on machines without a GPU,
# and it runs the browser tests and the screenshot script), pnpm 12.4.2, and the workspace's
# dependencies from the lockfile. It ends by opening the WebGPU device the way training does, so a
# machine that cannot train stops here with the remedy, not in a failing test run.
#   bash scripts/setup.sh           # what training, the tests and `pnpm bench` need
#   bash scripts/setup.sh --bench   # also PyTorch (CPU) as the bench peer and for golden fixtures,
#                                   # and matplotlib for tools/plots
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

# Found on a clean Debian 12 machine by installing nothing by hand and running what the README runs:
# without libvulkan1 Dawn finds no adapter; fonts-dejavu-core gives the screenshots their text;
# curl is a client the `horizon serve` tests drive (packages/node-runner/src/serve/serve.test.ts).
apt_packages=(libvulkan1 chromium fonts-dejavu-core curl)
[ "$want_bench" -eq 1 ] && apt_packages+=(python3-torch libopenblas0-pthread python3-matplotlib)
if command -v apt-get >/dev/null 2>&1; then
  missing=()
  # `dpkg -s` also succeeds for a removed package whose config files remain; ask for "installed".
  for p in "${apt_packages[@]}"; do
    [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]} (apt)"
    # A failed install (no root, no network) is not the end: the checks below name what is missing.
    if ! { as_root apt-get update -qq && DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }; then
      say "could not install ${missing[*]} with apt; continuing, and the checks below say what that leaves missing"
    fi
  fi
else
  say "not a Debian/Ubuntu machine: install the Vulkan loader and Chromium (for its SwiftShader driver and the browser tests) yourself if you have no GPU"
fi

# The loader is the piece a machine can lack while everything else looks installed: say so in
# seconds, before the dependencies are fetched.
if [ "$(uname -s)" = Linux ] && ! bash scripts/has-vulkan-loader.sh; then
  echo "setup.sh: the system Vulkan loader libvulkan.so.1 is missing, and WebGPU in Node (Dawn) cannot start without it; install it (Debian/Ubuntu: sudo apt-get install -y libvulkan1; Fedora: sudo dnf install vulkan-loader) and rerun." >&2
  exit 1
fi

if [ "$(pnpm --version 2>/dev/null || true)" != "12.4.2" ]; then
  say "installing pnpm 12.4.2 (npm)"
  if ! npm install -g pnpm@12.4.2 >/dev/null 2>&1; then as_root npm install -g pnpm@12.4.2 >/dev/null; fi
fi

say "installing dependencies (pnpm, from the lockfile)"
pnpm install --frozen-lockfile >/dev/null

# Open the device exactly as `horizon train` does; doctor prints the remedy when there is none.
say "opening the WebGPU device (horizon doctor)"
if ! doctor=$(./node_modules/.bin/tsx packages/node-runner/src/main.ts doctor 2>&1); then
  printf '%s\n' "$doctor" >&2
  echo "setup.sh: no usable WebGPU device, so training and the GPU tests cannot run; do what the lines above say and rerun." >&2
  exit 1
fi
field() { printf '%s\n' "$doctor" | sed -nE "s/^  $1 +//p"; }
say "WebGPU device: $(field 'adapter description'); software fallback: $(field 'software fallback')"
say "ready"
