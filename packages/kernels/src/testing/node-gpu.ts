// The GPU that tests on Node share: one device per test worker, acquired once. The GPU tier never
// skips: without an adapter every GPU test fails with the remedy (docs/conventions.md §7).

import { acquireNodeGpu } from '../gpu/provider-node.ts';
import type { Gpu } from '../gpu/runtime.ts';

let shared: Promise<Gpu> | undefined;

export function testGpu(): Promise<Gpu> {
  shared ??= acquireNodeGpu();
  return shared;
}
