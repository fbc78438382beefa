// What a Linux machine offers Dawn's Vulkan backend, found without loading anything: the system
// Vulkan loader (`libvulkan.so.1`, Debian's `libvulkan1`) and the driver manifests (ICDs) it could
// load. Dawn dlopens the loader itself; Chromium's private copy in /usr/lib/chromium is never used.
// A fresh Debian 12 machine with chromium but without libvulkan1 gave Dawn only "Couldn't load
// Vulkan", and every GPU test failed; the probe lets the no-adapter error name the missing piece.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const VULKAN_LOADER = 'libvulkan.so.1';

export interface VulkanProbe {
  /** Path of the system Vulkan loader, or undefined when the dynamic linker cannot find one. */
  loader: string | undefined;
  /** Vulkan driver manifests the loader would read (hardware drivers, lavapipe, SwiftShader). */
  drivers: string[];
}

/** Directories the dynamic linker searches for the loader on common distributions. */
function librarySearchDirs(): string[] {
  const triplet = { x64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu', arm: 'arm-linux-gnueabihf' }[process.arch as string];
  const fromEnv = (process.env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean);
  const multiarch = triplet ? [`/usr/lib/${triplet}`, `/lib/${triplet}`] : [];
  return [...fromEnv, ...multiarch, '/usr/local/lib', '/usr/lib64', '/lib64', '/usr/lib', '/lib'];
}

/** ld.so's cache holds every library path it knows as NUL-terminated strings. */
function loaderFromLinkerCache(): string | undefined {
  let cache: string;
  try {
    cache = readFileSync('/etc/ld.so.cache', 'latin1');
  } catch {
    return undefined;
  }
  const match = /\/[^\0]*\/libvulkan\.so\.1(?=\0)/.exec(cache);
  return match && existsSync(match[0]) ? match[0] : undefined;
}

export function findVulkanLoader(): string | undefined {
  for (const dir of librarySearchDirs()) {
    const path = join(dir, VULKAN_LOADER);
    if (existsSync(path)) return path;
  }
  return loaderFromLinkerCache();
}

/** The Khronos loader's manifest folders, or the files named by VK_DRIVER_FILES / VK_ICD_FILENAMES. */
export function findVulkanDrivers(): string[] {
  const named = (process.env.VK_DRIVER_FILES ?? process.env.VK_ICD_FILENAMES ?? '').split(':').filter(Boolean);
  if (named.length > 0) return named.filter((path) => existsSync(path));
  const dirs = ['/etc/vulkan/icd.d', '/usr/local/share/vulkan/icd.d', '/usr/share/vulkan/icd.d'];
  return dirs.flatMap((dir) => {
    try {
      return readdirSync(dir)
        .filter((name) => name.endsWith('.json'))
        .map((name) => join(dir, name));
    } catch {
      return [];
    }
  });
}

export function probeVulkan(): VulkanProbe {
  return { loader: findVulkanLoader(), drivers: findVulkanDrivers() };
}
