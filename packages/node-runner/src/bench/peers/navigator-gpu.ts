// A `navigator.gpu` for Node, holding a Dawn instance, for the WebGPU peers that look for the browser
// API (tfjs-backend-webgpu registers itself at import only if it exists; jax-js's `init('webgpu')`
// returns no WebGPU device without it). Node 20 has no `navigator`, so the shim makes one. Same
// device as ours: our provider has already chosen the adapter and, on a machine without a GPU, set
// VK_ICD_FILENAMES to SwiftShader; an instance created after that sees the same adapter. The peers
// still check the adapter they got against ours (docs/design.md §8.1), and run with our instance
// flags (Dawn's robustness off unless HORIZON_ROBUSTNESS=on), so the comparison is on equal terms.

import { dawnInstanceFlags } from '@horizon/kernels/node';

let installed: GPU | undefined;

/** Installs the shim once per process (both peers share its instance) and returns the instance. */
export async function installNavigatorGpu(): Promise<GPU> {
  if (installed) return installed;
  const dawn = (await import('webgpu')) as unknown as { create(flags: string[]): GPU; globals: Record<string, unknown> };
  Object.assign(globalThis, dawn.globals);
  // navigator.gpu keeps the instance alive for the rest of the process: Dawn stops serving an
  // instance's events once it is garbage-collected (see gpu/runtime.ts).
  const instance = dawn.create(dawnInstanceFlags());
  const g = globalThis as { navigator?: object };
  g.navigator ??= {};
  Object.defineProperty(g.navigator, 'gpu', { value: instance, configurable: true });
  if (!('userAgent' in g.navigator)) Object.defineProperty(g.navigator, 'userAgent', { value: 'node', configurable: true });
  installed = instance;
  return instance;
}
