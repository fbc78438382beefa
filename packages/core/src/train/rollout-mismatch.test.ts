// The rollout/trainer log-prob mismatch metrics and truncated importance sampling, against sums
// written out by hand.

import { policyLossRef } from '@horizon/kernels';
import { describe, expect, it } from 'vitest';
import { MISMATCH_THRESHOLD, rolloutMismatch, truncatedIsAdvantages } from './rollout-mismatch.ts';

const f32 = (xs: number[]) => Float32Array.from(xs);

describe('rolloutMismatch', () => {
  it('mean, max and the fraction above the threshold, over action tokens only', () => {
    const roll = f32([-1, -2, -0.5, -3, -9]);
    const old = f32([-1, -2.5, -0.505, -3.2, 0]);
    const mask = [1, 1, 1, 1, 0];
    const m = rolloutMismatch(roll, old, mask);
    const diffs = [0, 1, 2, 3].map((i) => Math.fround(Math.abs(roll[i] - old[i])));
    expect(m['policy/rollout_logp_diff']).toBeCloseTo(diffs.reduce((a, b) => a + b, 0) / 4, 7);
    expect(m['policy/rollout_logp_diff_max']).toBeCloseTo(0.5, 6);
    expect(MISMATCH_THRESHOLD).toBe(0.01);
    expect(m['policy/rollout_logp_mismatch_frac']).toBe(2 / 4);
  });

  it('no action token: zeros, never a NaN', () => {
    expect(rolloutMismatch(f32([-1]), f32([-2]), [0])).toEqual({
      'policy/rollout_logp_diff': 0,
      'policy/rollout_logp_diff_max': 0,
      'policy/rollout_logp_mismatch_frac': 0,
    });
  });
});

describe('truncatedIsAdvantages', () => {
  it('weights each action token by min(π_old/π_roll, C) and leaves the rest 0', () => {
    const advantages = f32([1, -2, 0.5, 3]);
    const old = f32([-1, -1, -2, -1]);
    const roll = f32([-1, -2, -1, -5]);
    const { advantages: weighted, metrics } = truncatedIsAdvantages(advantages, old, roll, [1, 1, 1, 0], 2);
    // Ratios: 1, e ≈ 2.718 (capped to 2), e⁻¹; the masked token gets 0.
    expect([...weighted]).toEqual([1, Math.fround(-2 * 2), Math.fround(0.5 * Math.exp(-1)), 0]);
    expect(metrics['policy/tis_clip_frac']).toBe(1 / 3);
    expect(metrics['policy/tis_weight_mean']).toBeCloseTo((1 + 2 + Math.exp(-1)) / 3, 12);
  });

  it('when the sampler and the trainer agree the weights are 1 and the advantages unchanged', () => {
    const advantages = f32([0.25, -1, 2]);
    const logp = f32([-0.3, -1.2, -4]);
    const { advantages: weighted, metrics } = truncatedIsAdvantages(advantages, logp, logp, [1, 1, 1], 1.5);
    expect(weighted).toEqual(advantages);
    expect(metrics).toEqual({ 'policy/tis_weight_mean': 1, 'policy/tis_clip_frac': 0 });
    expect(() => truncatedIsAdvantages(advantages, logp, logp, [1, 1, 1], 0)).toThrow(/cap must be positive/);
  });

  it('weighting the advantages is weighting the PPO-clip loss and its gradient, token by token, dual clip included', () => {
    const B = 2;
    const T = 4;
    const logp = f32([-0.5, -1.4, -2.2, -0.1, -3, -0.7, -1, -2]);
    const old = f32([-0.7, -1, -2.6, -0.1, -2, -0.7, -1.3, -1.8]);
    const roll = f32([-0.2, -1.9, -2.0, -0.4, -2.5, -0.2, -1.3, -3.5]);
    const advantages = f32([1.5, -0.8, 0.3, -2, 0.9, -1.1, 2, -0.4]);
    const mask = [1, 1, 1, 1, 1, 1, 0, 1];
    const scales = [0.125, 0.125];
    const weighted = truncatedIsAdvantages(advantages, old, roll, mask, 1.5).advantages;
    const w = Array.from(old, (x, i) => (mask[i] ? Math.min(Math.exp(x - roll[i]), 1.5) : 0));
    for (const dualClip of [0, 3]) {
      const options = { kind: 'ppo' as const, epsLow: 0.2, epsHigh: 0.28, dualClip, B, T };
      const plain = policyLossRef({ logp, oldLogp: old, advantages, mask, scales }, options);
      const tis = policyLossRef({ logp, oldLogp: old, advantages: weighted, mask, scales }, options);
      for (let i = 0; i < B * T; i++) {
        expect(tis.perToken[i]).toBeCloseTo(w[i] * plain.perToken[i], 6);
        expect(tis.grad[i]).toBeCloseTo(w[i] * plain.grad[i], 6);
      }
      // Which tokens clip depends on the sign of the advantage only, which the weights keep.
      expect([tis.lowFraction, tis.highFraction, tis.dualFraction]).toEqual([plain.lowFraction, plain.highFraction, plain.dualFraction]);
    }
  });
});
