// Node provider: Dawn through the `webgpu` package. With no usable adapter it falls back to the
// SwiftShader Vulkan driver that Debian's `chromium` package ships, by pointing the Vulkan loader
// at it (VK_ICD_FILENAMES) and creating a fresh Dawn instance. The report always says which device
// was chosen and whether it is a software fallback.
//
// Dawn's robustness (clamping every buffer index to the binding) is off in Node unless
// HORIZON_ROBUSTNESS=on: every kernel bounds its own accesses, its tests run without the clamp, and
// on SwiftShader the clamp cost a third of a training step (docs/experiments.md, 2026-12-04). The
// browser and Deno keep their runtime's robustness; they offer no switch.

import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calmDawnPolling } from './dawn-polling.ts';
import { GpuError } from './errors.ts';
import { openDevice } from './open-device.ts';
import { diagnoseNoAdapter, remedyText } from './remedies.ts';
import { describeAdapter } from './report.ts';
import type { Gpu } from './runtime.ts';
import { probeVulkan } from './vulkan-probe.ts';

export { probeVulkan, type VulkanProbe } from './vulkan-probe.ts';

/** Where SwiftShader's Vulkan ICD manifest lives in common Chromium packages. */
export const SWIFTSHADER_ICD_CANDIDATES = [
  '/usr/lib/chromium/vk_swiftshader_icd.json',
  '/usr/lib/chromium-browser/vk_swiftshader_icd.json',
  '/opt/google/chrome/vk_swiftshader_icd.json',
  '/snap/chromium/current/usr/lib/chromium-browser/vk_swiftshader_icd.json',
];

export interface NodeGpuOptions {
  /** Skip hardware adapters and use SwiftShader (also set by HORIZON_DEVICE=swiftshader). */
  software?: boolean;
}

type DawnModule = { create(flags: string[]): GPU; globals: Record<string, unknown> };

/**
 * The flags every Dawn instance in this process is created with (ours and the bench peers', so a
 * comparison runs on the same device settings). Robustness stays on with HORIZON_ROBUSTNESS=on,
 * for a kernel under development whose out-of-bounds access should read a clamped value rather
 * than whatever lies past the buffer.
 */
export function dawnInstanceFlags(): string[] {
  return dawnRobustness() ? [] : ['enable-dawn-features=disable_robustness'];
}

/** Whether Dawn clamps out-of-bounds buffer accesses in this process (see the header). */
export function dawnRobustness(): boolean {
  return process.env.HORIZON_ROBUSTNESS === 'on';
}

export function findSwiftShaderIcd(): string | undefined {
  const override = process.env.HORIZON_SWIFTSHADER_ICD;
  if (override) return existsSync(override) ? override : undefined;
  return SWIFTSHADER_ICD_CANDIDATES.find((path) => existsSync(path));
}

export async function acquireNodeGpu(options: NodeGpuOptions = {}): Promise<Gpu> {
  const dawn = await loadDawn();
  quietMesaWarnings();
  const backend = { linux: 'Vulkan', darwin: 'Metal', win32: 'D3D12' }[process.platform as string] ?? 'native';
  const wantSoftware = options.software || process.env.HORIZON_DEVICE === 'swiftshader';

  let instance: GPU | undefined;
  let adapter: GPUAdapter | null = null;
  let fallbackReason: string | undefined;
  if (!wantSoftware && mayHaveHardwareGpu()) {
    instance = dawn.create(dawnInstanceFlags());
    adapter = await instance.requestAdapter({ powerPreference: 'high-performance' });
  }
  if (!adapter) {
    const icd = findSwiftShaderIcd();
    if (icd) {
      // The Vulkan loader reads VK_ICD_FILENAMES when a Dawn instance starts, so a fresh instance
      // created after setting it sees only SwiftShader.
      process.env.VK_ICD_FILENAMES = icd;
      instance = dawn.create(dawnInstanceFlags());
      adapter = await instance.requestAdapter();
      fallbackReason = wantSoftware ? 'SwiftShader requested' : `no hardware GPU found; SwiftShader from ${icd}`;
    }
  }
  if (!adapter) {
    if (process.platform === 'linux') {
      const { message, remedy } = diagnoseNoAdapter(probeVulkan(), findSwiftShaderIcd());
      throw new GpuError('no-adapter', message, remedy);
    }
    throw new GpuError('no-adapter', `No WebGPU adapter was found: Dawn saw no ${backend} device.`, `Install one:\n${remedyText()}`);
  }
  const report = { ...describeAdapter(adapter, 'node', process.versions.node, backend, fallbackReason), robustness: dawnRobustness() };
  return openDevice(adapter, report, instance);
}

/**
 * On Linux a GPU shows up as a device node; without one, probing Dawn's adapters only finds software
 * drivers it rejects (Debian 12's lavapipe) and prints warnings, so we go straight to SwiftShader.
 */
export function mayHaveHardwareGpu(): boolean {
  if (process.platform !== 'linux') return true;
  const dri = existsSync('/dev/dri') ? readdirSync('/dev/dri').some((name) => name.startsWith('renderD')) : false;
  return dri || existsSync('/dev/nvidia0') || existsSync('/dev/dxg');
}

let dawnModule: DawnModule | undefined;

async function loadDawn(): Promise<DawnModule> {
  if (dawnModule) return dawnModule;
  try {
    dawnModule = (await import('webgpu')) as unknown as DawnModule;
  } catch (cause) {
    throw new GpuError('no-webgpu', 'The `webgpu` package (Dawn for Node) could not be loaded.', 'Run `pnpm install` in the Horizon checkout.', { cause });
  }
  // GPUBufferUsage, GPUMapMode and friends are globals in browsers and Deno; Dawn exports them.
  Object.assign(globalThis, dawnModule.globals);
  // Unless HORIZON_DAWN_POLLING=spin: Dawn's waits sleep between polls instead of taking a core.
  if (process.env.HORIZON_DAWN_POLLING !== 'spin') calmDawnPolling();
  return dawnModule;
}

/** Mesa's Vulkan drivers print "XDG_RUNTIME_DIR is invalid" on every probe when it is unset. */
function quietMesaWarnings(): void {
  if (!process.env.XDG_RUNTIME_DIR) process.env.XDG_RUNTIME_DIR = mkdtempSync(join(tmpdir(), 'horizon-xdg-'));
}
