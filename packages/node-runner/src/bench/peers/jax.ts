// The jax-js peer: @jax-js/jax 0.1.25 (a JAX-like library: NumPy-style arrays, grad, jit with kernel
// fusion, and a WebGPU backend that generates its own WGSL) in this same Node process, on the same
// device as ours. Its README lists Node's WebGPU as unsupported, but its backend only asks
// `navigator.gpu` for an adapter (`createBackend` in its dist/backend-*.js), so the Dawn shim of
// navigator-gpu.ts serves it as it serves tfjs. `loadJax` checks the adapter jax-js got against
// ours and refuses to compare across devices.
//
// jax-js frees an array when its reference count reaches zero, and every function consumes its
// array arguments (`x.ref` keeps one), so the peer's code passes `.ref` wherever an array is reused.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { DeviceReport } from '@horizon/kernels';
import { installNavigatorGpu } from './navigator-gpu.ts';
import { PeerUnavailable } from './tfjs.ts';

export type Jax = typeof import('@jax-js/jax');

export interface JaxPeer {
  jax: Jax;
  /** e.g. "jax-js-webgpu 0.1.25"; row peer names use it. */
  name: string;
  /** The features of the device jax-js requested (it asks for shader-f16 when the adapter offers it). */
  features: string[];
}

let loading: Promise<JaxPeer> | undefined;

/** Why the peer cannot load here, or undefined when @jax-js/jax resolves. */
export function jaxMissing(resolves: (name: string) => boolean = resolvable): string | undefined {
  if (resolves('@jax-js/jax')) return undefined;
  return 'unavailable: jax-js not installed (@jax-js/jax: a dev dependency of @horizon/node-runner; pnpm install without --prod)';
}

function resolvable(name: string): boolean {
  try {
    createRequire(import.meta.url).resolve(name);
    return true;
  } catch {
    return false;
  }
}

/** Loads jax-js once per process with WebGPU as its default device. Call after our own device is acquired. */
export function loadJax(ours: DeviceReport): Promise<JaxPeer> {
  loading ??= start(ours);
  return loading;
}

/** The peer, or the sentence saying why it cannot run (the rows' note). */
export function jaxPeer(ours: DeviceReport): Promise<JaxPeer | string> {
  return loadJax(ours).catch((error: unknown) =>
    error instanceof PeerUnavailable ? error.message : `unavailable: jax-js failed to start (${(error as Error).message})`,
  );
}

async function start(ours: DeviceReport): Promise<JaxPeer> {
  const missing = jaxMissing();
  if (missing) throw new PeerUnavailable(missing);
  if (typeof (globalThis as { Deno?: unknown }).Deno === 'undefined') await installNavigatorGpu();
  const jax = await import('@jax-js/jax');
  const started = await jax.init('webgpu');
  if (!started.includes('webgpu')) throw new PeerUnavailable('unavailable: jax-js found no WebGPU adapter through navigator.gpu');
  jax.defaultDevice('webgpu');
  const device = jax.getWebGPUDevice();
  const info = (device as GPUDevice & { adapterInfo?: GPUAdapterInfo }).adapterInfo;
  if (!info) throw new PeerUnavailable('unavailable: the WebGPU device jax-js made does not say which adapter it came from');
  if (info.vendor !== ours.vendor || info.architecture !== ours.architecture) {
    throw new PeerUnavailable(`unavailable: jax-js got adapter ${info.vendor}/${info.architecture}, ours is ${ours.vendor}/${ours.architecture}`);
  }
  return { jax, name: `jax-js-webgpu ${installedVersion()}`, features: [...device.features].map(String).sort() };
}

/** The installed version, from its package.json (the package exports no version, nor its package.json). */
function installedVersion(): string {
  const entry = createRequire(import.meta.url).resolve('@jax-js/jax'); // …/dist/index.cjs
  return (JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version: string }).version;
}
