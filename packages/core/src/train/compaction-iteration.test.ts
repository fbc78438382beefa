// One RL iteration with compaction on, through the real loop on the GPU (SwiftShader in CI): the
// trainer's limits carry the recipe's compaction, episodes are cut into segments, the segments are
// scored and trained as rows of their rollouts, and the rollout metrics count rollouts, not
// segments. GRPO on stream-grpo, shrunk to 2 prompts × 2 rollouts. The episodes come from
// LongStream's honest scripted policy, wrong on every third answer (an untrained model answers at
// once and never reads far enough to compact); the tiny untrained model scores and trains them.

import { describe, expect, it } from 'vitest';
import { ALGORITHM_BY_NAME } from '../algorithms/index.ts';
import { LONG_STREAM_COMPACTION } from '../envs/long-stream/demo.ts';
import { byRollout } from '../envs/rollouts.ts';
import { actionTokenCount } from '../envs/sample.ts';
import { longStreamPolicy } from '../envs/testing/long-stream-policy.ts';
import { scriptedSampler } from '../envs/testing/scripted-sampler.ts';
import { resolveRecipe } from '../recipe/resolve.ts';
import type { GpuSampler } from './gpu-sampler.ts';
import { rlIteration } from './rl-iteration.ts';
import { testRlContext } from './testing/rl-context.ts';

describe('an RL iteration with compaction', () => {
  it('segments train as rows of their rollouts, and the rollout metrics count rollouts', async () => {
    const recipe = resolveRecipe({
      preset: 'stream-grpo',
      sets: ['rl.promptsPerIteration=2', 'rl.groupSize=2', 'rl.minibatches=1', 'rl.epochs=1'],
    }).recipe;
    const { ctx: base } = await testRlContext(recipe, ALGORITHM_BY_NAME.grpo);
    let answers = 0;
    const script = scriptedSampler(base.codec, (context) => {
      const step = longStreamPolicy(context, LONG_STREAM_COMPACTION.keepSteps);
      if (step.ending !== 'eos' || ++answers % 3 !== 0) return step;
      return { text: String((Number(step.text) + 1) % 10), ending: 'eos' };
    });
    // The loop reseeds its sampler each iteration; the script has no randomness to reseed.
    const ctx = { ...base, sampler: Object.assign(script, { reseed() {} }) as unknown as GpuSampler };
    expect(ctx.limits.compaction?.maxSegments).toBe(6);
    const { metrics, samples } = await rlIteration(ctx, 0, 0);
    const rollouts = byRollout(samples, (s) => s.sample);
    expect(rollouts).toHaveLength(4);
    expect(samples.length).toBeGreaterThan(4);
    expect(metrics['rollout/segments']).toBeCloseTo(samples.length / 4, 12);
    for (const segments of rollouts) {
      const tokens = segments.map(({ sample }) => actionTokenCount(sample));
      segments.forEach(({ sample }, k) => {
        expect(sample.segmentIndex).toBe(k);
        expect(sample.compacted).toBe(k < segments.length - 1 ? true : undefined);
        expect(sample.tokensAfter).toBe(tokens.slice(k + 1).reduce((a, n) => a + n, 0));
      });
    }
    const actions = samples.reduce((n, { sample }) => n + actionTokenCount(sample), 0);
    expect(metrics['rollout/response_length']).toBeCloseTo(actions / 4, 12);
    expect(metrics['rollout/trained_samples']).toBe(samples.length);
    expect(metrics['rollout/success']).toBeCloseTo(3 / 4, 12);
    expect(Number.isFinite(metrics['policy/loss'])).toBe(true);
    expect(Number.isFinite(metrics['policy/kl'])).toBe(true);
  });
});
