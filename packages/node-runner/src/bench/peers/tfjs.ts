// The WebGPU peer: @tensorflow/tfjs-core + tfjs-backend-webgpu 4.22.0 in this same Node process, on
// the same device as ours. The backend registers itself at import only if `navigator.gpu` exists
// (tfjs-backend-webgpu/src/base.ts), and Node 20 has no `navigator`, so the Dawn shim of
// navigator-gpu.ts goes in first (docs/design.md §8.1). `loadTfjs` checks the adapter tfjs got
// against ours and refuses to compare across devices.
//
// tfjs-core's Node entry (a CommonJS bundle) carries no gradient functions: they exist only in its
// per-file ES modules (`dist/register_all_gradients.js`), written for bundlers, which Node cannot
// load (extensionless and directory imports). So the peer is what a tfjs user ships: core, its
// gradients and the WebGPU backend bundled by esbuild (about 0.4 s), one copy of core shared by all.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DeviceReport } from '@horizon/kernels';
import { installNavigatorGpu } from './navigator-gpu.ts';

type Tf = typeof import('@tensorflow/tfjs-core');

export interface TfjsPeer {
  tf: Tf;
  /** e.g. "tfjs-webgpu 4.22.0"; row peer names use it. */
  name: string;
  /** Submits what tfjs has recorded and waits for the device to finish it. */
  sync(): Promise<void>;
}

/** Thrown when the peer cannot run here; the rows then carry `message` as their note. */
export class PeerUnavailable extends Error {}

/** The parts of tfjs's WebGPUBackend `sync` touches: it batches dispatches into an encoder it submits lazily. */
interface WebGpuBackendInternals {
  device: GPUDevice;
  adapterInfo: { vendor: string; architecture: string };
  commandEncoder: GPUCommandEncoder | null;
  endComputePassEncoder(): void;
  submitQueue(): void;
}

let loading: Promise<TfjsPeer> | undefined;

/** What the peer loads; dev dependencies, so a production install of the CLI runs without them. */
const TFJS_PACKAGES = ['@tensorflow/tfjs-core', '@tensorflow/tfjs-backend-webgpu', 'esbuild'] as const;

/** Why the peer cannot load here ("tfjs not installed" and which), or undefined when all resolve. */
export function tfjsMissing(resolves: (name: string) => boolean = resolvable): string | undefined {
  const missing = TFJS_PACKAGES.filter((name) => !resolves(name));
  if (missing.length === 0) return undefined;
  return `unavailable: tfjs not installed (${missing.join(', ')}: dev dependencies of @horizon/node-runner; pnpm install without --prod)`;
}

function resolvable(name: string): boolean {
  try {
    createRequire(import.meta.url).resolve(name);
    return true;
  } catch {
    return false;
  }
}

/** Loads tfjs once per process. Call after our own device is acquired (see the header). */
export function loadTfjs(ours: DeviceReport): Promise<TfjsPeer> {
  loading ??= start(ours);
  return loading;
}

async function start(ours: DeviceReport): Promise<TfjsPeer> {
  if (typeof (globalThis as { Deno?: unknown }).Deno !== 'undefined') {
    throw new PeerUnavailable("unavailable: tfjs-backend-webgpu 4.22 fails on Deno's WebGPU (tensorflow/tfjs#8518); run the bench under Node");
  }
  const missing = tfjsMissing();
  if (missing) throw new PeerUnavailable(missing);
  await installNavigatorGpu();

  const tf = await bundleTfjs();
  // Keep every op on the GPU: by default tfjs runs ops whose inputs still sit on the CPU there.
  tf.env().set('WEBGPU_CPU_FORWARD', false);
  if (!(await tf.setBackend('webgpu'))) throw new PeerUnavailable('unavailable: tfjs could not start its WebGPU backend on this device');
  await tf.ready();
  const backend = tf.backend() as unknown as WebGpuBackendInternals;
  const info = backend.adapterInfo;
  if (info.vendor !== ours.vendor || info.architecture !== ours.architecture) {
    throw new PeerUnavailable(`unavailable: tfjs got adapter ${info.vendor}/${info.architecture}, ours is ${ours.vendor}/${ours.architecture}`);
  }
  const sync = async () => {
    if (backend.commandEncoder) {
      backend.endComputePassEncoder();
      backend.submitQueue();
    }
    await backend.device.queue.onSubmittedWorkDone();
  };
  return { tf, name: `tfjs-webgpu ${tf.version_core}`, sync };
}

async function bundleTfjs(): Promise<Tf> {
  const { build } = await import('esbuild');
  const entry = [
    "export * from '@tensorflow/tfjs-core';",
    "import '@tensorflow/tfjs-core/dist/register_all_gradients';",
    "import '@tensorflow/tfjs-backend-webgpu';",
  ].join('\n');
  const here = dirname(fileURLToPath(import.meta.url));
  const result = await build({
    stdin: { contents: entry, resolveDir: here, loader: 'js' },
    bundle: true,
    format: 'cjs',
    platform: 'node',
    // The ES module builds, where the gradients live; `main` would pick the gradient-less bundle.
    mainFields: ['module', 'main'],
    write: false,
    logLevel: 'error',
  });
  const dir = mkdtempSync(join(tmpdir(), 'horizon-tfjs-'));
  const file = join(dir, 'tfjs-webgpu.cjs');
  try {
    writeFileSync(file, result.outputFiles[0].contents);
    return createRequire(import.meta.url)(file) as Tf;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
