// The all-equal-group probe on a hand-built batch: which groups are flat (by task reward only), and
// how the advantage mass splits between them and the rest.

import { describe, expect, it } from 'vitest';
import { probeGroups } from './group-probe.ts';

describe('probeGroups', () => {
  // 4 rows × T = 3, groups [0, 0, 1, 1]; action tokens at t = 1, 2; the reward sits on t = 2.
  const B = 4;
  const T = 3;
  const mask = [0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1];
  const groupIds = [0, 0, 1, 1];

  it('finds the flat group and splits Σ|A| between flat and other tokens', () => {
    const rewards = [0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0]; // group 0 both 1 (flat), group 1: 1 vs 0
    const advantages = [9, 0.1, -0.1, 9, 0.1, 0.1, 9, 1, 1, 9, -1, -1]; // position 0 is off the mask: ignored
    const p = probeGroups({ B, T, rewards, groupIds, actionMask: mask, advantages }, 7);
    expect(p.iteration).toBe(7);
    expect(p.flatFraction).toBe(0.5);
    expect(p.flatMeanAbsAdvantage).toBeCloseTo(0.1, 12);
    expect(p.otherMeanAbsAdvantage).toBeCloseTo(1, 12);
    expect(p.flatAdvantageShare).toBeCloseTo(0.4 / 4.4, 12);
  });

  it('zero advantages everywhere: no share, no division by zero', () => {
    const p = probeGroups({ B, T, rewards: new Array(12).fill(0), groupIds, actionMask: mask, advantages: new Array(12).fill(0) }, 0);
    expect(p.flatFraction).toBe(1);
    expect(p.flatAdvantageShare).toBe(0);
    expect(p.otherMeanAbsAdvantage).toBe(0);
  });
});
