// The SFT warm start every arm of a seed starts from, computed once per (SFT recipe, seed) and
// kept as an SFT-phase checkpoint (the policy and the SFT optimizer's moments, written with the
// run directories' own checkpoint code, so a half-written cache is never read). An arm restores
// it with Trainer.restore: RL arms then start exactly where `horizon train` would after SFT, and an
// SFT-only arm continues the same optimizer on the same data stream, as one longer warm start would.

import { type Checkpoint, loadCheckpoint, type Recipe, saveCheckpoint, Trainer } from '@horizon/core';
import type { Gpu } from '@horizon/kernels';
import { DirectoryCheckpointStore } from '../run/checkpoint-store.ts';

/** Loads the cached warm start in `dir`, or trains it (`recipe.sft.steps` steps) and caches it. */
export async function warmStart(gpu: Gpu, recipe: Recipe, dir: string, say: (line: string) => void): Promise<Checkpoint> {
  const store = new DirectoryCheckpointStore(dir);
  await store.collectGarbage();
  if ((await store.list()).length > 0) return loadCheckpoint(store);
  const started = performance.now();
  const trainer = new Trainer(gpu, recipe);
  try {
    // Stopping once SFT is done leaves the trainer in its SFT phase, before RL builds any model.
    await trainer.run({ shouldStop: () => trainer.sftStep >= recipe.sft.steps });
    const ckpt = await trainer.checkpoint();
    await saveCheckpoint(store, ckpt, { keepLast: 1 });
    say(`warm start (seed ${recipe.seed}, ${recipe.sft.steps} SFT steps) in ${((performance.now() - started) / 1000).toFixed(0)} s, cached in ${dir}`);
    return ckpt;
  } finally {
    trainer.dispose();
  }
}
