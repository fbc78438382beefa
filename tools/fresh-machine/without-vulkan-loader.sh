#!/usr/bin/env bash
# Runs a command as on a machine without the system Vulkan loader (Debian's libvulkan1), without
# uninstalling anything: in a private mount namespace, an overlay hides libvulkan.so.1 from the
# library folder and a rebuilt linker cache forgets it. Everything else on the machine stays as it
# is, and other processes still see the loader. Needs root (unshare, mount).
#   bash tools/fresh-machine/without-vulkan-loader.sh bash scripts/setup.sh
#   bash tools/fresh-machine/without-vulkan-loader.sh pnpm horizon doctor
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: $0 COMMAND [ARGS...]" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "$0: needs root (a private mount namespace)" >&2; exit 2; }
libdir=/usr/lib/$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)
[ -d "$libdir" ] || libdir=/usr/lib/x86_64-linux-gnu
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export HIDE_LIBDIR=$libdir HIDE_SCRATCH=$scratch
exec unshare --mount --propagation private bash -c '
  set -euo pipefail
  # The overlay layers live on a tmpfs: an overlay cannot take its upper layer from another overlay
  # (as inside tools/fresh-machine/clean-room.sh).
  mount -t tmpfs tmpfs "$HIDE_SCRATCH"
  mkdir -p "$HIDE_SCRATCH/upper" "$HIDE_SCRATCH/work"
  for lib in "$HIDE_LIBDIR"/libvulkan.so*; do mknod "$HIDE_SCRATCH/upper/$(basename "$lib")" c 0 0; done # overlay whiteouts
  mount -t overlay overlay -o "lowerdir=$HIDE_LIBDIR,upperdir=$HIDE_SCRATCH/upper,workdir=$HIDE_SCRATCH/work" "$HIDE_LIBDIR"
  ldconfig -C "$HIDE_SCRATCH/ld.so.cache"
  mount --bind "$HIDE_SCRATCH/ld.so.cache" /etc/ld.so.cache
  exec "$@"
' hide-vulkan "$@"
