// The critic walkthrough's baselines on core's parser: a well-formed output is digit/10, every
// malformed form takes the mean of the well-formed values, or 0.5 when none is well-formed; with
// γ = 1 and a constant baseline, GenAC's advantage is the outcome minus the baseline on every token.

import { describe, expect, it } from 'vitest';
import { GENAC_ACTIONS, GENAC_PRESETS, GENAC_ROLLOUTS } from './genac-data.ts';
import { computeGenacWalk, genacBaselines } from './genac-walk.ts';

describe('genac walkthrough', () => {
  it('the presets cover every malformed form, each with its fallback', () => {
    const reasons = GENAC_PRESETS.flatMap((p) => genacBaselines(p.critiques).parsed.flatMap((c) => (c.ok ? [] : [c.reason])));
    expect(new Set(reasons)).toEqual(new Set(['no-eos', 'no-slot', 'several-slots', 'empty', 'not-a-number', 'leading-zero', 'out-of-range']));
    expect(genacBaselines(GENAC_PRESETS[1].critiques).values).toEqual([0.5, 0.5, 0.5, 0.5]);
    const mixed = genacBaselines(GENAC_PRESETS[2].critiques);
    expect(mixed.fallback).toBeCloseTo(0.8, 12);
    expect(mixed.values).toEqual([0.8, mixed.fallback, mixed.fallback, mixed.fallback]);
  });

  it('GenAC’s advantage is the outcome minus the baseline on every action token', async () => {
    const a = await computeGenacWalk(null, { kind: 'genac', critiques: GENAC_PRESETS[0].critiques, lambda: 0.95 }, 'cpu');
    for (const [b, r] of GENAC_ROLLOUTS.entries()) {
      expect(a.genac[b]).toHaveLength(GENAC_ACTIONS);
      for (const x of a.genac[b]) expect(x).toBeCloseTo(r.reward - a.baselines[b], 6);
    }
  });

  it('refuses a batch of the wrong size in a sentence', async () => {
    await expect(computeGenacWalk(null, { kind: 'genac', critiques: [], lambda: 0.9 }, 'cpu')).rejects.toThrow(/one critic output per rollout/);
  });
});
