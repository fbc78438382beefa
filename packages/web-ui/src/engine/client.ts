// The page's handle on the engine worker. Vite bundles the worker from this `new URL(…)` pattern.

import { type Remote, wrap } from 'comlink';
import type { EngineApi } from './api.ts';

export type EngineHandle = Remote<EngineApi>;

export function startEngine(): EngineHandle {
  const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'horizon-engine' });
  return wrap<EngineApi>(worker);
}
