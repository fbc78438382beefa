// Deno and browser provider: `navigator.gpu`. Deno's WebGPU (wgpu) accepts Mesa's lavapipe and
// SwiftShader; browsers pick their own device.

import { GpuError } from './errors.ts';
import { openDevice } from './open-device.ts';
import { remedyText } from './remedies.ts';
import { describeAdapter, type RuntimeName } from './report.ts';
import type { Gpu } from './runtime.ts';

interface DenoGlobal {
  version: { deno: string };
  build: { os: string };
  env: { get(name: string): string | undefined; set(name: string, value: string): void };
  statSync(path: string): unknown;
  readDirSync(path: string): Iterable<{ name: string }>;
  makeTempDirSync(): string;
}

/** Same places as the Node provider looks (kept here too: this file must not import node:fs). */
const SWIFTSHADER_ICDS = [
  '/usr/lib/chromium/vk_swiftshader_icd.json',
  '/usr/lib/chromium-browser/vk_swiftshader_icd.json',
  '/opt/google/chrome/vk_swiftshader_icd.json',
];

export function detectRuntime(): { runtime: RuntimeName; version: string } {
  const deno = (globalThis as { Deno?: DenoGlobal }).Deno;
  if (deno) return { runtime: 'deno', version: deno.version.deno };
  return { runtime: 'browser', version: typeof navigator !== 'undefined' ? navigator.userAgent : 'unknown' };
}

export async function acquireNavigatorGpu(): Promise<Gpu> {
  const { runtime, version } = detectRuntime();
  const fallbackReason = runtime === 'deno' ? preferSwiftShaderOnDeno() : undefined;
  const gpu = (globalThis as { navigator?: { gpu?: GPU } }).navigator?.gpu;
  if (!gpu) {
    throw new GpuError(
      'no-webgpu',
      `This ${runtime === 'deno' ? 'Deno' : 'browser'} exposes no navigator.gpu.`,
      runtime === 'deno'
        ? 'Use Deno 2 or newer (WebGPU is built in) and run with permissions (-A).'
        : 'Use a browser with WebGPU (Chrome or Edge 113+, Safari 26+, Firefox 141+ on Windows) on a page served over https or from localhost.',
    );
  }
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) {
    throw new GpuError(
      'no-adapter',
      `${runtime === 'deno' ? 'Deno' : 'The browser'} found no WebGPU adapter.`,
      runtime === 'deno' ? `Install a Vulkan driver:\n${remedyText()}` : 'Enable hardware acceleration in the browser settings, or update the GPU driver.',
    );
  }
  const backend = runtime === 'deno' ? denoBackend() : 'browser';
  return openDevice(adapter, describeAdapter(adapter, runtime, version, backend, fallbackReason));
}

/**
 * Deno's wgpu reads the Vulkan driver list when WebGPU is first used. On Linux without a GPU device
 * node we point it at SwiftShader (as the Node provider does), so both runtimes compute on the same
 * software device; HORIZON_DEVICE=lavapipe keeps Mesa's lavapipe instead.
 */
function preferSwiftShaderOnDeno(): string | undefined {
  const deno = (globalThis as unknown as { Deno: DenoGlobal }).Deno;
  if (deno.build.os !== 'linux') return undefined;
  const exists = (path: string) => {
    try {
      deno.statSync(path);
      return true;
    } catch {
      return false;
    }
  };
  if (!deno.env.get('XDG_RUNTIME_DIR')) deno.env.set('XDG_RUNTIME_DIR', deno.makeTempDirSync());
  const requested = deno.env.get('HORIZON_DEVICE');
  if (deno.env.get('VK_ICD_FILENAMES') || requested === 'lavapipe') return undefined;
  const hasGpuNode =
    exists('/dev/nvidia0') || exists('/dev/dxg') || (exists('/dev/dri') && [...deno.readDirSync('/dev/dri')].some((e) => e.name.startsWith('renderD')));
  if (hasGpuNode && requested !== 'swiftshader') return undefined;
  const icd = SWIFTSHADER_ICDS.find(exists);
  if (!icd) return undefined;
  deno.env.set('VK_ICD_FILENAMES', icd);
  return requested === 'swiftshader' ? 'SwiftShader requested' : `no hardware GPU found; SwiftShader from ${icd}`;
}

function denoBackend(): string {
  const os = (globalThis as unknown as { Deno: DenoGlobal }).Deno.build.os;
  return { linux: 'Vulkan', darwin: 'Metal', windows: 'D3D12' }[os] ?? 'native';
}
