// The CLI runs under Node (Dawn) and Deno (navigator.gpu); this picks the provider for the runtime
// it finds itself in. Imports are dynamic so Deno never loads Dawn's Node addon.

import type { Gpu } from '@horizon/kernels';

export function isDeno(): boolean {
  return typeof (globalThis as { Deno?: unknown }).Deno !== 'undefined';
}

export async function acquireGpu(): Promise<Gpu> {
  if (isDeno()) {
    const { acquireNavigatorGpu } = await import('@horizon/kernels/navigator');
    return acquireNavigatorGpu();
  }
  const { acquireNodeGpu } = await import('@horizon/kernels/node');
  return acquireNodeGpu();
}
