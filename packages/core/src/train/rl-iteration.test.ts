// The iteration loop names no method: a toy method defined here (a constant advantage, the models
// and loss terms it declares) runs through rlIteration, which trains exactly what it asks for, when
// it asks for it, and logs its metrics. On the GPU (SwiftShader in CI), with a tiny untrained policy.

import { describe, expect, it } from 'vitest';
import { type Algorithm, type LossTerm, maskedStats, POLICY, REFERENCE } from '../algorithms/algorithm.ts';
import { resolveRecipe } from '../recipe/resolve.ts';
import type { RlContext } from './rl-context.ts';
import { rlIteration } from './rl-iteration.ts';
import { testRlContext } from './testing/rl-context.ts';

const TOY_LR = 5e-3;

/** Every action token gets advantage +1; the policy trains from iteration 1 on, on the terms given. */
function toyMethod(terms: readonly LossTerm[], calls: number[]): Algorithm {
  return {
    // The loop reads the name only for messages; any recipe name will do.
    name: 'rloo',
    models: [POLICY, REFERENCE],
    scores: [],
    async advantages({ rows }) {
      const advantages = Float32Array.from(rows.actionMask);
      return { advantages, returns: new Float32Array(rows.B * rows.T), metrics: { 'rollout/advantage_mean': maskedStats(advantages, rows.actionMask).mean } };
    },
    updates(_recipe, iteration) {
      calls.push(iteration);
      return iteration === 0 ? [] : [{ model: 'policy', lr: TOY_LR, terms }];
    },
  };
}

async function context(algorithm: Algorithm): Promise<RlContext> {
  const recipe = resolveRecipe({
    preset: 'tiny',
    sets: ['rl.algorithm=rloo', 'rl.promptsPerIteration=4', 'rl.groupSize=2', 'rl.epochs=2', 'rl.minibatches=2'],
  }).recipe;
  return (await testRlContext(recipe, algorithm)).ctx;
}

describe('rlIteration runs a method it has never heard of', () => {
  it('asks the method what to train each iteration, trains only that, and logs what the terms produce', async () => {
    const calls: number[] = [];
    const ctx = await context(toyMethod([{ kind: 'ppo-clip', epsLow: 0.2, epsHigh: 0.2, dualClip: 0 }], calls));
    const policy = ctx.models.byName.get('policy');
    const start = await policy.readParameters();

    const idle = await rlIteration(ctx, 0, 0);
    expect(await policy.readParameters()).toEqual(start);
    expect(idle.metrics['rollout/advantage_mean']).toBe(1);
    expect(Object.keys(idle.metrics).filter((k) => k.startsWith('policy/') || k.startsWith('critic/'))).toEqual([
      'policy/rollout_logp_diff',
      'policy/rollout_logp_diff_max',
      'policy/rollout_logp_mismatch_frac',
    ]);

    const trained = await rlIteration(ctx, 1, 4);
    expect(calls).toEqual([0, 1]);
    expect(await policy.readParameters()).not.toEqual(start);
    expect(trained.metrics['policy/lr']).toBe(TOY_LR);
    // A positive advantage on every token: the surrogate's loss is negative.
    expect(trained.metrics['policy/loss']).toBeLessThan(0);
    expect(trained.metrics['policy/dual_clip_frac']).toBe(0);
    expect(Object.keys(trained.metrics).some((k) => k.startsWith('critic/'))).toBe(false);
    expect(trained.samples).toHaveLength(8);
    expect(Object.keys(trained.samples[0].channels).sort()).toEqual(['advantage', 'kl', 'logprob']);
  });

  it('a method that trains a model it did not declare gets one sentence naming it', async () => {
    const method = toyMethod([], []);
    const ctx = await context({ ...method, updates: () => [{ model: 'critic', lr: 1e-3, terms: [{ kind: 'value', clip: 0 }] }] });
    await expect(rlIteration(ctx, 0, 0)).rejects.toThrow('rloo trains "critic", which it does not declare as a trained model');
  });
});
