// The critic probe on hand-built batches: value error per rollout against its group's mean reward,
// ranking accuracy over prompt pairs (ties in value count half, equal Monte-Carlo values are not a
// pair), which value each critic's batch supplies (GenAC's written value, PPO's V at the first
// action position), and a run's mean over its points after iteration 0.

import { describe, expect, it } from 'vitest';
import { criticMeans, criticProbeBatch, probeCritic, type ScoredForProbe } from './critic-probe.ts';
import type { RunResult } from './results.ts';

describe('probeCritic', () => {
  it('measures |v − MC| per rollout and orders prompts by their mean value', () => {
    // Groups 0, 1, 2 with MC 1, 0.5, 0; values 0.9 / 0.5, 0.3 / 0.4 / 0.4, 0.2.
    const p = probeCritic({ groupIds: [0, 0, 1, 1, 2, 2], values: [0.9, 0.5, 0.3, 0.4, 0.4, 0.2], rewards: [1, 1, 1, 0, 0, 0] }, 10);
    expect(p.iteration).toBe(10);
    expect(p.prompts).toBe(3);
    expect(p.valueError).toBeCloseTo((0.1 + 0.5 + 0.2 + 0.1 + 0.4 + 0.2) / 6, 12);
    // Mean values 0.7, 0.35, 0.3: every pair in MC's order.
    expect(p.rankingAccuracy).toBe(1);
  });

  it('counts a reversed pair as wrong, a tie in value as half, and skips prompts with equal MC', () => {
    // MC 1, 0, 0, 1 (groups 0–3); values 0.2, 0.6, 0.6, 0.6.
    const p = probeCritic({ groupIds: [0, 1, 2, 3], values: [0.2, 0.6, 0.6, 0.6], rewards: [1, 0, 0, 1] }, 0);
    // Pairs with different MC: (0,1) wrong, (0,2) wrong, (1,3) tie, (2,3) tie → 1 of 4.
    expect(p.rankingAccuracy).toBeCloseTo(0.25, 12);
  });

  it('has no ranking when every prompt has the same MC value', () => {
    expect(probeCritic({ groupIds: [0, 1], values: [0.1, 0.9], rewards: [1, 1] }, 0).rankingAccuracy).toBeNaN();
  });
});

describe('criticProbeBatch', () => {
  // Two rows × T = 4; actions from t = 1 in row 0 and t = 2 in row 1; sample 1 was dropped (trained = [0, 2]).
  const base = {
    rows: { B: 2, T: 4, groupIds: [0, 0], actionMask: [0, 1, 1, 0, 0, 0, 1, 1] },
    trained: [0, 2],
  };

  it("reads PPO's V at each row's first action position, and the rows' own rewards", () => {
    const scored: ScoredForProbe = {
      ...base,
      samples: [
        { reward: 1, meta: {} },
        { reward: 7, meta: {} },
        { reward: 0, meta: {} },
      ],
      scores: { values: [9, 0.25, 9, 9, 9, 9, 0.75, 9] },
    };
    const batch = criticProbeBatch(scored);
    expect(Array.from(batch?.values ?? [])).toEqual([0.25, 0.75]);
    expect(Array.from(batch?.rewards ?? [])).toEqual([1, 0]);
  });

  it("reads GenAC's written value from each rollout's critique before any value head", () => {
    const scored: ScoredForProbe = {
      ...base,
      samples: [
        { reward: 1, meta: { genac: { value: 0.7 } } },
        { reward: 0, meta: {} },
        { reward: 0, meta: { genac: { value: 0.2 } } },
      ],
      scores: {},
    };
    expect(Array.from(criticProbeBatch(scored)?.values ?? [])).toEqual([0.7, 0.2]);
  });

  it('gives nothing for a method without a critic', () => {
    expect(
      criticProbeBatch({
        ...base,
        samples: [
          { reward: 1, meta: {} },
          { reward: 0, meta: {} },
          { reward: 0, meta: {} },
        ],
        scores: {},
      }),
    ).toBeUndefined();
  });
});

describe('criticMeans', () => {
  const run = (critic: RunResult['critic']): RunResult => ({
    key: 'k',
    report: 'r',
    arm: 'a',
    seed: 1,
    curve: [],
    final: { heldOut: 0, ood: 0 },
    seconds: 0,
    sampledTokens: 0,
    ...(critic ? { critic } : {}),
  });

  it('averages the points after iteration 0, leaving out the untrained critic', () => {
    const m = criticMeans(
      run([
        { iteration: 0, valueError: 0.9, rankingAccuracy: 0.5, prompts: 4 },
        { iteration: 10, valueError: 0.2, rankingAccuracy: 0.8, prompts: 4 },
        { iteration: 20, valueError: 0.1, rankingAccuracy: Number.NaN, prompts: 4 },
      ]),
    );
    expect(m?.valueError).toBeCloseTo(0.15, 12);
    expect(m?.rankingAccuracy).toBeCloseTo(0.8, 12);
  });

  it('is undefined for a run without probes', () => {
    expect(criticMeans(run(undefined))).toBeUndefined();
  });
});
