#!/usr/bin/env bash
# Packs what a Linux x86-64 GPU machine without Node (and without network access) needs to run one
# bundled JavaScript entry point on Dawn's Vulkan backend: the Node binary, the `webgpu` package with
# its Dawn addon, the Vulkan/EGL loader packages (downloaded with apt-get, so this machine needs its
# package sources), and your files. tools/device/bundle.sh calls it for the horizon CLI; by hand, from
# the repository root on a Debian x86-64 machine with the dependencies installed:
#   bash tools/device/pack.sh dist/bench.mjs [more files...]
# Bundle the entry point with 'webgpu' left external (esbuild/vite: external: ['webgpu']).
# It fills .device/ (about 30 MB; kept out of git through .git/info/exclude). Take .device/ along with
# the working tree and run, on the GPU machine:   bash .device/boot.sh node .device/bench.mjs ARGS
# boot.sh unpacks the loaders and Node, points Vulkan at the NVIDIA driver and prints the GPU's name,
# driver and clock before running the command. Try the whole command here first, on SwiftShader,
# with DEVICE_NO_DEBS=1 (skips unpacking the loader packages into /); then spend as few GPU runs as
# possible. boot.sh never changes the GPU's clocks, power limits or modes.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: bash tools/device/pack.sh BUNDLE.mjs [FILES...]" >&2; exit 2; }
root=$(git rev-parse --show-toplevel)
cd "$root"
grep -qxF '/.device/' .git/info/exclude 2>/dev/null || echo '/.device/' >> .git/info/exclude
pkg=$(node -e "const p=require('path');console.log(p.dirname(require.resolve('webgpu/package.json',{paths:[process.cwd(),process.cwd()+'/packages/kernels',process.cwd()+'/packages/node-runner']})))" 2>/dev/null || true)
[ -n "$pkg" ] && [ -f "$pkg/dist/linux-x64/dawn.node" ] || pkg=$(dirname "$(find . -path '*node_modules/webgpu/package.json' 2>/dev/null | head -n 1)")
[ -f "$pkg/dist/linux-x64/dawn.node" ] || { echo "pack.sh: the webgpu package is not installed here" >&2; exit 1; }
rm -rf .device && mkdir -p .device/deb .device/node_modules/webgpu/dist/linux-x64
xz -T0 -6 -c "$(readlink -f "$(command -v node)")" > .device/node.xz
cp "$pkg/package.json" "$pkg/index.js" .device/node_modules/webgpu/
xz -T0 -6 -c "$pkg/dist/linux-x64/dawn.node" > .device/node_modules/webgpu/dist/linux-x64/dawn.node.xz
for f in "$@"; do cp "$f" .device/; done
lists=$(mktemp -d)
mkdir -p "$lists/partial"
o="-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=$lists"
apt-get $o update >/dev/null
for d in libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2; do
  (cd .device/deb && apt-get $o download "$d" >/dev/null 2>&1)
  ls .device/deb/"$d"_*.deb >/dev/null 2>&1 || { echo "pack.sh: could not download $d" >&2; exit 1; }
done
rm -rf "$lists"
cat > .device/boot.sh <<'BOOT'
#!/usr/bin/env bash
# On the GPU machine: unpack the loaders, Node and Dawn, point Vulkan at the NVIDIA driver, run the rest.
set -e
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "${DEVICE_NO_DEBS:-}" ]; then for f in "$here"/deb/*.deb; do dpkg -x "$f" /; done; ldconfig; fi
[ -x "$here/node" ] || { xz -dc "$here/node.xz" > "$here/node"; chmod +x "$here/node"; }
addon="$here/node_modules/webgpu/dist/linux-x64/dawn.node"
[ -f "$addon" ] || xz -dc "$addon.xz" > "$addon"
nvidia=/usr/local/nvidia/share
[ -f $nvidia/vulkan/icd.d/nvidia_icd.json ] && export VK_DRIVER_FILES=${VK_DRIVER_FILES:-$nvidia/vulkan/icd.d/nvidia_icd.json}
[ -f $nvidia/glvnd/egl_vendor.d/10_nvidia.json ] && export __EGL_VENDOR_LIBRARY_FILENAMES=${__EGL_VENDOR_LIBRARY_FILENAMES:-$nvidia/glvnd/egl_vendor.d/10_nvidia.json}
export PATH="$here:$PATH" NODE_PATH="$here/node_modules"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader || true
cmd="$1"; shift
if [ "$cmd" = node ]; then exec "$here/node" "$@"; fi
exec "$cmd" "$@"
BOOT
chmod +x .device/boot.sh
du -sh .device
