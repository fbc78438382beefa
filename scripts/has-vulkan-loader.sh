#!/usr/bin/env bash
# Exits 0 when the linker cache lists the system Vulkan loader (libvulkan.so.1, which Dawn opens),
# 1 when it does not. Where there is no ldconfig to ask, it exits 0: the device check in setup.sh
# still tells.
#
# The cache is read whole before it is searched. `ldconfig -p | grep -q` under pipefail fails on a
# machine whose cache is bigger than a pipe buffer (64 KiB): grep stops at the first match, ldconfig
# dies of SIGPIPE, and the pipeline reports 141. That is how setup.sh once told a CI machine that had
# the loader that it was missing.
set -euo pipefail
ldconfig=$(command -v ldconfig || echo /sbin/ldconfig)
[ -x "$ldconfig" ] || exit 0
cache=$("$ldconfig" -p 2>/dev/null || true)
[[ $cache == *libvulkan.so.1* ]]
