#!/usr/bin/env bash
# Packs the horizon CLI for a GPU machine without Node (how it works: tools/device/pack.sh): esbuild bundles
# packages/node-runner/src/main.ts into dist/horizon.mjs with Dawn's `webgpu` package left external,
# then pack.sh fills .device/ with Node, Dawn's addon, the Vulkan loader and our files (the bundle
# and the PyTorch twin). On the GPU machine (run from the repository root):
#   bash .device/boot.sh node .device/horizon.mjs doctor
#   HORIZON_TORCH_PEER=.device/torch_peer.py HORIZON_TORCH_DEVICE=cuda \
#     bash .device/boot.sh node .device/horizon.mjs bench --json "$OUT/bench.json"
#   bash .device/boot.sh node .device/horizon.mjs train --quiet --out "$OUT/run"
# Try it here first, on SwiftShader, without unpacking the loader packages into /:
#   DEVICE_NO_DEBS=1 bash .device/boot.sh node .device/horizon.mjs doctor
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p dist
packages/node-runner/node_modules/.bin/esbuild packages/node-runner/src/main.ts --bundle --platform=node --format=esm --target=node20 \
  --external:webgpu --external:@tensorflow/* --external:esbuild --outfile=dist/horizon.mjs --log-level=warning \
  --banner:js="import { createRequire as __horizonRequire } from 'node:module'; const require = __horizonRequire(import.meta.url);"
bash tools/device/pack.sh dist/horizon.mjs tools/bench/torch_peer.py
