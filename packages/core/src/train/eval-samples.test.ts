// Which evaluation episodes reach samples.jsonl: the first 4 held-out episodes by default, every one
// of them with `log.allSamples` (to read every greedy trace of a run, not a sample of them). On the
// GPU (SwiftShader in CI), a tiny recipe cut to seconds.

import { testGpu } from '@horizon/kernels/testing';
import { describe, expect, it } from 'vitest';
import { resolveRecipe } from '../recipe/resolve.ts';
import { Trainer } from './trainer.ts';

const SMALL = [
  'model.contextLength=16',
  'sft.steps=2',
  'rl.iterations=1',
  'rl.promptsPerIteration=4',
  'rl.minibatches=1',
  'rl.criticWarmupSteps=0',
  'eval.interval=0',
  'eval.heldOutSize=10',
  'eval.oodSize=3',
  'checkpoint.interval=0',
];

/** Held-out rollout ids logged per evaluation step. */
async function loggedEvalRollouts(allSamples: boolean): Promise<Map<number, number[]>> {
  const gpu = await testGpu();
  const recipe = resolveRecipe({ preset: 'add-ppo', sets: [...SMALL, `log.allSamples=${allSamples}`] }).recipe;
  const logged = new Map<number, number[]>();
  await new Trainer(gpu, recipe).run({
    onSamples: (phase, step, samples) => {
      if (phase === 'eval')
        logged.set(
          step,
          samples.map((s) => s.sample.rolloutId),
        );
    },
  });
  return logged;
}

describe('evaluation samples in the log', () => {
  it('logs the first 4 held-out episodes of each evaluation by default and every one with log.allSamples', async () => {
    const some = await loggedEvalRollouts(false);
    expect([...some.keys()]).toEqual([0, 1]);
    for (const ids of some.values()) expect(ids).toEqual([0, 1, 2, 3]);
    const all = await loggedEvalRollouts(true);
    expect([...all.keys()]).toEqual([0, 1]);
    for (const ids of all.values()) expect(ids).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});
