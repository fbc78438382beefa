import { describe, expect, it } from 'vitest';
import { criticRewards, groupCentred, monteCarloValues, reinforceLossRef } from './critic-targets.ts';

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
