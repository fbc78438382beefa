#!/usr/bin/env bash
# Runs a command in a fresh clone of this checkout's HEAD, on this machine as it was before the
# project installed anything on it — without uninstalling anything, so other work on the machine
# goes on. A chroot over an overlay of / (its writes land in a tmpfs and vanish afterwards) hides
# every Debian package installed since a cut-off date (default: the day of the project's first
# commit, the rule the before-stop hook uses), restores dpkg's record of them as not installed, and
# hides pnpm and the caches setup and the tests create. The README's commands then start from the
# state a new user's machine of this kind starts from. Needs root.
#
#   bash tools/fresh-machine/clean-room.sh 'bash scripts/setup.sh && pnpm run train'
#   bash tools/fresh-machine/clean-room.sh --since 2026-12-01 'bash .ci/run'
set -euo pipefail

usage() { echo "usage: $0 [--since YYYY-MM-DD] [--keep DIR] 'COMMAND'" >&2; exit 2; }
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
since=$(git -C "$repo" log -1 --format=%cs "$(git -C "$repo" rev-list --max-parents=0 HEAD | tail -n 1)")
keep=''
while [ $# -gt 1 ]; do
  case "$1" in
    --since) since=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;; # copy the clone's runs/ here afterwards
    *) usage ;;
  esac
done
[ $# -eq 1 ] || usage
command=$1
[ "$(id -u)" -eq 0 ] || { echo "$0: needs root (mounts and chroot)" >&2; exit 2; }

scratch=$(mktemp -d /tmp/clean-room.XXXXXX)
root=$scratch/root
upper=$scratch/layer/upper
cleanup() {
  for m in dev/shm dev/pts dev sys proc; do umount -l "$root/$m" 2>/dev/null || true; done
  umount -l "$root" 2>/dev/null || true
  umount -l "$scratch/layer" 2>/dev/null || true
  rm -rf "$scratch"
}
trap cleanup EXIT
mkdir -p "$scratch/layer" "$root"
mount -t tmpfs -o size=16g tmpfs "$scratch/layer"
mkdir -p "$upper" "$scratch/layer/work"

# An overlay whiteout hides one path; its parent folders are made with the lower layer's modes.
hide() {
  local path=$1 dir
  # Debian 12 merged /usr: /lib, /bin and /sbin are links into /usr that some packages list as their
  # own (libinput-bin, libnl-3-200…); a whiteout there would hide every library and command.
  # Their files are hidden where they really are (/lib/udev/… as /usr/lib/udev/…): a folder made in
  # the upper layer at /lib would replace the link, and the dynamic loader with it.
  case $path in /bin | /sbin | /lib | /lib32 | /lib64 | /libx32) return 0 ;; esac
  [ -e "$path" ] || [ -L "$path" ] || return 0
  dir=$(readlink -f "$(dirname "$path")")
  path=${dir%/}/$(basename "$path")
  if [ ! -d "$upper$dir" ]; then
    local part=''
    IFS=/ read -ra parts <<<"${dir#/}"
    for p in "${parts[@]}"; do
      part=$part/$p
      [ -d "$upper$part" ] || { mkdir "$upper$part"; chmod --reference="$part" "$upper$part"; chown --reference="$part" "$upper$part"; }
    done
  fi
  rm -rf "${upper:?}$path"
  mknod "$upper$path" c 0 0
}

packages=$(zcat -f /var/log/dpkg.log* | awk -v d="$since" '$3=="install" && $1>=d {split($4,a,":"); print a[1]}' | sort -u)
installed=()
for p in $packages; do
  [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] && installed+=("$p")
done
echo "[clean-room] hiding ${#installed[@]} packages installed since $since: ${installed[*]:-none}" >&2
for p in "${installed[@]}"; do
  dpkg-query -L "$p" 2>/dev/null | while read -r f; do [ -d "$f" ] && [ ! -L "$f" ] || hide "$f"; done
  for f in /var/lib/dpkg/info/"$p".* /var/lib/dpkg/info/"$p":*; do hide "$f"; done
done
# dpkg's status without those packages' stanzas.
mkdir -p "$upper/var/lib/dpkg"
awk -v list=" ${installed[*]} " 'BEGIN { RS=""; ORS="\n\n" } { split($0, l, "\n"); name=l[1]; sub(/^Package: /, "", name); if (index(list, " " name " ") == 0) print }' \
  /var/lib/dpkg/status >"$upper/var/lib/dpkg/status"
chmod --reference=/var/lib/dpkg/status "$upper/var/lib/dpkg/status"
# What setup and the tests leave outside the checkout.
for f in "$(npm root -g)/pnpm" /usr/bin/pnpm /usr/bin/pnpx /usr/local/bin/pnpm /root/.local/share/pnpm /root/.cache/pnpm \
  /root/.cache/deno /root/.cache/biome /root/.cache/mesa_shader_cache /root/.cache/ms-playwright; do
  hide "$f"
done

mount -t overlay overlay -o "lowerdir=/,upperdir=$upper,workdir=$scratch/layer/work" "$root"
for m in proc sys dev dev/pts dev/shm; do mount --bind "/$m" "$root/$m"; done
chroot "$root" ldconfig # the linker cache forgets the hidden libraries, as removing them would
git clone -q "$repo" "$root/root/horizon"
echo "[clean-room] fresh clone of $(git -C "$repo" rev-parse --short HEAD) in /root/horizon; running: $command" >&2
status=0
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb LANG=C.UTF-8 \
  bash -c "cd /root/horizon && $command" || status=$?
if [ -n "$keep" ] && [ -d "$root/root/horizon/runs" ]; then mkdir -p "$keep" && cp -r "$root/root/horizon/runs/." "$keep/"; fi
echo "[clean-room] exit $status" >&2
exit "$status"
