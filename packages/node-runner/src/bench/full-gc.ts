// A full garbage collection on demand, so the host RSS the memory bench samples is what the process
// holds rather than whatever V8 has not yet collected. Without it RSS between two identical tiny
// PPO iterations swung by tens of MiB (V8's used heap cycled 50 → 150 MiB between collections), and
// a leak check on it failed CI on noise; with a collection before each sample the same 40 iterations
// held 228–246 MiB (2026-12-03, docs/experiments.md).
//
// Node exposes `gc` only with --expose-gc; setting the flag at run time and reading `gc` from a new
// context gives the same function without asking every caller (vitest's workers, `pnpm bench`,
// the CLI) for the flag. Deno has no such hook; there the caller samples without a collection.

import v8 from 'node:v8';
import vm from 'node:vm';

type Collect = () => void;

let collect: Collect | null | undefined;

function findCollector(): Collect | null {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return exposed as Collect;
  try {
    v8.setFlagsFromString('--expose-gc');
    const fromContext: unknown = vm.runInNewContext('typeof gc === "function" ? gc : null');
    return typeof fromContext === 'function' ? (fromContext as Collect) : null;
  } catch {
    return null;
  }
}

/** Runs a full collection and says whether one ran (false where the runtime offers none). */
export function fullGc(): boolean {
  if (collect === undefined) collect = findCollector();
  if (!collect) return false;
  collect();
  return true;
}
