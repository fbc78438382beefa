// The rollout-lag simulator delivers the right policy version: with rl.rolloutLag = k, an iteration's
// rollouts are sampled by the policy of k policy updates ago, so their recorded log-probs (π_roll)
// equal that past policy's scores of the same tokens, not the current one's; lag is counted in
// optimizer steps of the policy, so two minibatches are two updates. The current weights are back in
// place after sampling. On the GPU (SwiftShader in CI), with a tiny untrained policy.

import { describe, expect, it } from 'vitest';
import type { Algorithm } from '../algorithms/algorithm.ts';
import { maskedStats } from '../algorithms/algorithm.ts';
import { ALGORITHM_BY_NAME } from '../algorithms/index.ts';
import { Gpt } from '../model/gpt.ts';
import { resolveRecipe } from '../recipe/resolve.ts';
import { collectAndScore } from './collect-and-score.ts';
import { PolicyHistory } from './policy-history.ts';
import type { RlContext } from './rl-context.ts';
import { rlIteration } from './rl-iteration.ts';
import type { Scorer } from './scoring.ts';
import { testRlContext } from './testing/rl-context.ts';

async function context(lag: number, minibatches: number): Promise<RlContext & { history: PolicyHistory }> {
  const recipe = resolveRecipe({
    preset: 'add-grpo',
    sets: [
      'model.contextLength=16',
      'rl.promptsPerIteration=4',
      'rl.groupSize=2',
      'rl.epochs=1',
      `rl.minibatches=${minibatches}`,
      `rl.rolloutLag=${lag}`,
      'rl.policyLr=3e-2',
    ],
  }).recipe;
  // An untrained policy earns no reward, so GRPO's advantages would be 0: every action token gets +1.
  const algorithm: Algorithm = {
    ...ALGORITHM_BY_NAME.grpo,
    advantages: async ({ rows }) => ({ advantages: Float32Array.from(rows.actionMask), returns: new Float32Array(rows.B * rows.T), metrics: {} }),
  };
  const { ctx, policy } = await testRlContext(recipe, algorithm);
  return { ...ctx, history: new PolicyHistory(policy, lag) };
}

/** Largest |a − b| over action tokens. */
function maxDiff(a: Float32Array, b: Float32Array, mask: Uint32Array): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) if (mask[i]) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

/** Log-probs the policy with `weights` gives the batch's tokens. */
async function scoresOf(ctx: RlContext, weights: Float32Array, rows: Parameters<Scorer['score']>[0]): Promise<Float32Array> {
  const policy = ctx.models.byName.get('policy');
  const past = Gpt.fromWeights(policy.gpu, policy.config, weights, 'past');
  try {
    const byName = new Map([
      ['policy', past],
      ['reference', past],
    ]);
    return (await ctx.scorer.score(rows, byName, [], ctx.recipe.rl.temperature)).oldLogp;
  } finally {
    past.destroy();
  }
}

describe('rollout lag', () => {
  it('k = 1, one update per iteration: the rollouts are the previous policy’s, π_roll its scores', async () => {
    const ctx = await context(1, 1);
    const policy = ctx.models.byName.get('policy');
    const before = await policy.readParameters();
    const first = await rlIteration(ctx, 0, 0);
    expect(first.metrics['rollout/policy_lag']).toBe(0);
    expect(ctx.history.age).toBe(1);
    const current = await policy.readParameters();
    expect(current).not.toEqual(before);

    const { rows, scores } = await collectAndScore(ctx, 1, 4);
    // The current weights are back after sampling with the past ones.
    expect(await policy.readParameters()).toEqual(current);
    const previous = await scoresOf(ctx, before, rows);
    const mask = rows.actionMask;
    expect(maskedStats(mask, mask).count).toBeGreaterThan(0);
    // The KV-cache sampler and the full forward compute log-probs with different kernels (as at lag 0).
    expect(maxDiff(rows.rolloutLogp, previous, mask)).toBeLessThan(1e-5);
    // π_old is the current policy's, one update away from π_roll.
    expect(maxDiff(rows.rolloutLogp, scores.oldLogp, mask)).toBeGreaterThan(1e-3);
    const second = await rlIteration(ctx, 1, 4);
    expect(second.metrics['rollout/policy_lag']).toBe(1);
  });

  it('k = 2 with two minibatches: two updates in one iteration, so the next rollouts are the policy from before it', async () => {
    const ctx = await context(2, 2);
    const policy = ctx.models.byName.get('policy');
    const before = await policy.readParameters();
    await rlIteration(ctx, 0, 0);
    expect(ctx.history.age).toBe(2);
    const { rows, scores } = await collectAndScore(ctx, 1, 4);
    const mask = rows.actionMask;
    expect(maxDiff(rows.rolloutLogp, await scoresOf(ctx, before, rows), mask)).toBeLessThan(1e-5);
    expect(maxDiff(rows.rolloutLogp, scores.oldLogp, mask)).toBeGreaterThan(1e-3);
  });
});
