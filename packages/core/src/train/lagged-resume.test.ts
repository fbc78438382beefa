// A run with a rollout lag resumes bit for bit: the kept past policies are trainer state, so a
// checkpoint holds them (models policy-lag-1 … policy-lag-k) and N iterations straight equal N/2, a
// checkpoint round trip through its files, and N/2 more. A checkpoint stripped of them resumes
// differently, so the test would see a ring buffer that was not restored. On the GPU (SwiftShader in
// CI), the tiny recipe cut to seconds.

import { testGpu } from '@horizon/kernels/testing';
import { describe, expect, it } from 'vitest';
import { loadCheckpoint, MemoryCheckpointStore, saveCheckpoint } from '../checkpoint/store.ts';
import type { MetricName } from '../metrics/glossary.ts';
import { resolveRecipe } from '../recipe/resolve.ts';
import { Trainer, type TrainerHooks } from './trainer.ts';

type Line = { phase: string; step: number; metrics: Partial<Record<MetricName, number>> };

const LAGGED = [
  'sft.steps=20',
  'rl.iterations=4',
  'rl.promptsPerIteration=16',
  'eval.interval=2',
  'eval.heldOutSize=20',
  'checkpoint.interval=2',
  // One update per iteration, so lag 2 is two iterations.
  'rl.epochs=1',
  'rl.minibatches=1',
  'rl.rolloutLag=2',
];

function recorder(lines: Line[]): TrainerHooks {
  return { onMetrics: (phase, step, metrics) => void lines.push({ phase, step, metrics }) };
}

/** RL and eval rows without wall-clock figures. */
const numerics = (lines: Line[]) =>
  lines.filter((l) => l.phase !== 'sft').map((l) => ({ ...l, metrics: Object.fromEntries(Object.entries(l.metrics).filter(([k]) => !k.startsWith('perf/'))) }));

describe('a lagged run', () => {
  it('N iterations equal N/2, a checkpoint round trip with the kept policies, and N/2 more — bit for bit', async () => {
    const gpu = await testGpu();
    const recipe = resolveRecipe({ preset: 'tiny', sets: LAGGED }).recipe;
    const straight: Line[] = [];
    await new Trainer(gpu, recipe).run(recorder(straight));
    const lags = straight.filter((l) => l.phase === 'rl').map((l) => l.metrics['rollout/policy_lag']);
    expect(lags).toEqual([0, 1, 2, 2]);

    const half = recipe.rl.iterations / 2;
    const resumed: Line[] = [];
    const first = new Trainer(gpu, recipe);
    const store = new MemoryCheckpointStore();
    await first.run({ ...recorder(resumed), shouldStop: () => first.iteration >= half });
    const ckpt = await first.checkpoint();
    expect(Object.keys(ckpt.models)).toEqual(['policy', 'reference', 'critic', 'policy-lag-1', 'policy-lag-2']);
    expect(ckpt.models['policy-lag-1'].adam).toBeUndefined();
    await saveCheckpoint(store, ckpt, { keepLast: 1 });
    const loaded = await loadCheckpoint(store, { recipe });
    const second = new Trainer(gpu, recipe);
    second.restore(loaded);
    await second.run(recorder(resumed));
    expect(numerics(resumed)).toEqual(numerics(straight));

    // Without the kept policies the rest of the run samples from other weights.
    const forgetful = new Trainer(gpu, recipe);
    const { 'policy-lag-1': _, 'policy-lag-2': __, ...rest } = loaded.models;
    forgetful.restore({ ...loaded, models: rest as typeof loaded.models });
    const without: Line[] = [];
    await forgetful.run(recorder(without));
    const lastHalf = (lines: Line[]) =>
      numerics(lines)
        .filter((l) => l.phase === 'rl' && l.step > half)
        .map((l): Line => ({ ...l, metrics: { ...l.metrics, 'rollout/policy_lag': undefined } }));
    expect(lastHalf(without)).toHaveLength(half);
    expect(lastHalf(without)).not.toEqual(lastHalf(straight));
    // Sampled by the current policy, π_roll is π_old again; sampled two updates back, it is not.
    expect(lastHalf(without)[0].metrics['policy/rollout_logp_diff']).toBeLessThan(1e-5);
    expect(lastHalf(straight)[0].metrics['policy/rollout_logp_diff']).toBeGreaterThan(1e-4);
  });
});
