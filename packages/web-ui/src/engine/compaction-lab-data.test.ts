// The compaction lab's trajectory assembly and batchings (compaction-lab-data.ts): segments put back
// in order by index, only trained tokens (action, summary) carry an advantage, the run's cuts sit
// where its segments start, and the three batchings hold the same tokens — so token-mean cannot
// differ between them while seq-mean-token-mean can (the reference reducer, aggregateRef).

import { aggregateRef } from '@horizon/kernels';
import { describe, expect, it } from 'vitest';
import type { ReplaySample } from './api.ts';
import { labBatches, longestOfNewest, packLabBatch, trajectories } from './compaction-lab-data.ts';

/** A segment: `kinds` one letter per token, `adv` the advantage channel (0 off trained tokens). */
const segment = (step: number, rolloutId: number, segmentIndex: number, kinds: string, adv: number[]): ReplaySample => ({
  phase: 'rl',
  step,
  rolloutId,
  groupId: 0,
  seed: 1,
  prompt: 'p',
  turns: [],
  reward: 0,
  done: false,
  segmentIndex,
  tokens: [...kinds].map((_, i) => i),
  pieces: [...kinds].map((k) => k),
  roles: kinds,
  kinds,
  channels: { advantage: adv },
});

describe('compaction lab data', () => {
  const samples = [
    segment(1, 0, 1, 'pcaos', [0, 0, 0.5, 0, -0.25]),
    segment(1, 0, 0, 'paoas', [0, 1, 0, 2, 3]),
    segment(1, 0, 2, 'pcaa', [0, 0, -1, 0.75]),
    segment(1, 1, 0, 'paa', [0, 0.1, 0.2]),
  ];

  it('puts a trajectory back together by segment index, with the run’s cuts', () => {
    const [t] = trajectories(samples);
    expect(t.segments.map((s) => s.segmentIndex)).toEqual([0, 1, 2]);
    expect(t.advantages).toEqual([1, 2, 3, 0.5, -0.25, -1, 0.75]);
    expect(t.runCuts).toEqual([3, 5]);
    expect(t.segments[1].tokens.map((k) => k.advantage)).toEqual([null, null, 0.5, null, -0.25]);
    expect(longestOfNewest(trajectories(samples))?.rolloutId).toBe(0);
  });

  it('batches the same tokens three ways: token-mean is one number, seq-mean-token-mean is not', () => {
    const [t] = trajectories(samples);
    const batches = labBatches(t, [], 2);
    expect(batches.map((b) => b.rows.map((r) => r.length))).toEqual([[7], [3, 2, 2], [2, 5]]);
    const reduce = (mode: 'token-mean' | 'seq-mean-token-mean', b: (typeof batches)[number]) => {
      const p = packLabBatch(b.rows);
      return aggregateRef(p.values, p.mask, p.B, p.T, { mode, rolloutIds: b.rolloutIds, constant: 7 });
    };
    const tokenMean = batches.map((b) => reduce('token-mean', b));
    expect(tokenMean[1]).toBeCloseTo(tokenMean[0], 12);
    expect(tokenMean[2]).toBeCloseTo(tokenMean[0], 12);
    expect(tokenMean[0]).toBeCloseTo(-(1 + 2 + 3 + 0.5 - 0.25 - 1 + 0.75) / 7, 12);
    expect(Math.abs(reduce('seq-mean-token-mean', batches[2]) - reduce('seq-mean-token-mean', batches[0]))).toBeGreaterThan(0.1);
  });
});
