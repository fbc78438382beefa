import { describe, expect, it } from 'vitest';
import { criticRewards, groupCentred, monteCarloValues, reinforceLossRef } from './critic-targets.ts';
import { baselineAdvantages, whitened } from './policy-advantages.ts';

describe("the generative critic's targets", () => {
  it('takes each prompt group’s mean reward as its Monte-Carlo value', () => {
    expect(Array.from(monteCarloValues([0, 0, 1, 1, 1, 2], [1, 0, 1, 1, 0, 0]))).toEqual([0.5, 0.5, 2 / 3, 2 / 3, 2 / 3, 0]);
  });

  it('rewards a value by its squared error and a malformed sample with −1', () => {
    const r = criticRewards([0.5, 0.7, undefined, 1], [0.5, 0.5, 0.5, 0]);
    expect(r[0]).toBe(-0);
    expect(r[1]).toBeCloseTo(-0.04, 12);
    expect(r[2]).toBe(-1);
    expect(r[3]).toBe(-1);
  });

  it('centres rewards on their group, and a group of one gets no advantage', () => {
    expect(Array.from(groupCentred([0, 0, 1], [-0.04, 0, -1]))).toEqual([-0.02, 0.02, 0]);
  });

  it('is the advantage-weighted cross-entropy over the masked tokens', () => {
    // Two rows of 3 positions: row 0 trains 2 tokens, row 1 one; 3 tokens in all.
    const logp = [-1, -2, -9, -0.5, -7, -7];
    const mask = [1, 1, 0, 1, 0, 0];
    const loss = reinforceLossRef(logp, mask, [0.5, -2], 2, 3);
    expect(loss).toBeCloseTo(-(0.5 * (-1 - 2) + -2 * -0.5) / 3, 12);
    expect(reinforceLossRef(logp, [0, 0, 0, 0, 0, 0], [1, 1], 2, 3)).toBe(0);
  });
});

describe("the actor's advantages on the critic's baseline", () => {
  it('are the return from each action token minus its row’s value, 0 off the mask', () => {
    // Row 0: prompt, then 3 action tokens with the reward 1 on the last; row 1: 2 action tokens, reward 0, a KL penalty on the first.
    const rows = { B: 2, T: 4, actionMask: Uint32Array.of(0, 1, 1, 1, 0, 1, 1, 0) };
    const rewards = Float32Array.of(0, 0, 0, 1, 0, -0.25, 0, 0);
    const got = baselineAdvantages(rows, rewards, [0.75, 0.5], 1);
    expect(Array.from(got)).toEqual([0, 0.25, 0.25, 0.25, 0, -0.75, -0.5, 0]);
    const discounted = baselineAdvantages(rows, rewards, [0.75, 0.5], 0.5);
    expect(Array.from(discounted)).toEqual([0, 0.25 - 0.75, 0.5 - 0.75, 1 - 0.75, 0, -0.75, -0.5, 0]);
  });

  it('whiten over the action tokens only, with the unbiased variance the kernel uses', () => {
    const mask = Uint32Array.of(1, 1, 0, 1);
    const w = whitened(Float32Array.of(1, 2, 9, 3), mask);
    expect(w[2]).toBe(0);
    const on = [w[0], w[1], w[3]];
    expect(on.reduce((a, b) => a + b, 0)).toBeCloseTo(0, 6);
    expect(on.reduce((a, b) => a + b * b, 0) / (3 - 1)).toBeCloseTo(1, 4);
  });
});
