// The verdict rule on hand-computed cases: the standard error of paired differences, the 2-SE
// threshold in each direction, and the cases with nothing to judge.

import { describe, expect, it } from 'vitest';
import { pairedDifference, spread } from './verdict.ts';

describe('pairedDifference', () => {
  it('computes per-seed differences, their mean and standard error (n − 1)', () => {
    const p = pairedDifference([0.5, 0.6, 0.7], [0.4, 0.4, 0.4], 'higher');
    expect(p.differences.map((d) => +d.toFixed(12))).toEqual([0.1, 0.2, 0.3]);
    expect(p.mean).toBeCloseTo(0.2, 12);
    // sd = 0.1, se = 0.1 / √3
    expect(p.standardError).toBeCloseTo(0.1 / Math.sqrt(3), 12);
    expect(p.verdict).toBe('reproduces'); // 0.2 > 2 × 0.0577
  });

  it('contradicts when the difference is over 2 SE the other way', () => {
    expect(pairedDifference([0.5, 0.6, 0.7], [0.4, 0.4, 0.4], 'lower').verdict).toBe('contradicts');
    expect(pairedDifference([0.3, 0.31, 0.29], [0.5, 0.5, 0.5], 'higher').verdict).toBe('contradicts');
  });

  it('is inconclusive within 2 SE: the boundary itself included', () => {
    // differences 0.1, 0.0, 0.2 → mean 0.1, sd 0.1, se 0.0577: 0.1 < 0.115
    expect(pairedDifference([0.5, 0.4, 0.6], [0.4, 0.4, 0.4], 'higher').verdict).toBe('inconclusive');
    // differences 0, 0, 3 → mean 1, sd √3, se 1: |mean| = 1 ≤ 2
    expect(pairedDifference([0, 0, 3], [0, 0, 0], 'higher').verdict).toBe('inconclusive');
  });

  it('pairs by seed: a shared per-seed offset cancels', () => {
    // Seeds differ a lot from each other, the arm is ahead by 0.02 on every one: paired, that is decisive.
    const base = [0.2, 0.5, 0.8];
    expect(
      pairedDifference(
        base.map((x, i) => x + 0.02 + i * 1e-3),
        base,
        'higher',
      ).verdict,
    ).toBe('reproduces');
  });

  it('has nothing to judge with fewer than 2 seeds or identical arms', () => {
    expect(pairedDifference([0.9], [0.1], 'higher').verdict).toBe('inconclusive');
    expect(Number.isNaN(pairedDifference([0.9], [0.1], 'higher').standardError)).toBe(true);
    expect(pairedDifference([0.4, 0.5, 0.6], [0.4, 0.5, 0.6], 'higher').verdict).toBe('inconclusive');
    expect(pairedDifference([], [], 'higher').verdict).toBe('inconclusive');
  });

  it('a constant nonzero difference (SE 0) is decisive', () => {
    expect(pairedDifference([0.5, 0.6], [0.4, 0.5], 'higher').verdict).toBe('reproduces');
  });

  it('refuses unpaired inputs', () => {
    expect(() => pairedDifference([0.1, 0.2], [0.1], 'higher')).toThrow(/one value per seed/);
  });
});

describe('spread', () => {
  it('is the mean and the sample standard deviation', () => {
    const s = spread([1, 2, 3, 4]);
    expect(s.mean).toBe(2.5);
    expect(s.std).toBeCloseTo(Math.sqrt(5 / 3), 12);
    expect(Number.isNaN(spread([1]).std)).toBe(true);
  });
});
