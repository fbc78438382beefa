// The compaction walkthrough's assembly on the float64 reference (no GPU here; the browser test
// checks the kernels): with V = 0 the stitched segments are the uncut rollout wherever the cut
// falls, the first segment is its local GAE times (γλ)^tokensAfter, token-mean and per-rollout-mean
// losses do not move while the seq-mean reducers do, and a cut off the rollout is refused.

import { describe, expect, it } from 'vitest';
import { LONG_T } from './compaction-data.ts';
import { computeCompactionWalk } from './compaction-walk.ts';

const walk = (cut: number, critic: boolean, gamma = 1, lambda = 0.9) => computeCompactionWalk(null, { kind: 'compaction', cut, gamma, lambda, critic }, 'cpu');

describe('compaction walkthrough', () => {
  it('with V = 0, every cut stitches back to the uncut advantages', async () => {
    for (let cut = 1; cut < LONG_T; cut++) {
      const a = await walk(cut, false, 0.95, 0.8);
      for (const [t, x] of a.stitched.entries()) expect(x, `cut ${cut}, token ${t}`).toBeCloseTo(a.whole[t], 12);
      for (const [t, x] of a.local.slice(0, cut).entries()) expect(x * a.factor).toBeCloseTo(a.stitched[t], 12);
      expect(a.tokensAfter).toBe(LONG_T - cut);
    }
  });

  it('with a critic, the segments differ from the uncut rollout near the cut', async () => {
    const a = await walk(5, true);
    expect(Math.max(...a.stitched.map((x, t) => Math.abs(x - a.whole[t])))).toBeGreaterThan(1e-3);
  });

  it('token-mean and per-rollout-mean are split-invariant; the seq-mean reducers are not', async () => {
    const a = await walk(4, true);
    const by = Object.fromEntries(a.losses.map((l) => [l.mode, l]));
    expect(by['token-mean'].cut).toBeCloseTo(by['token-mean'].whole, 12);
    expect(by['per-rollout-mean'].cut).toBeCloseTo(by['per-rollout-mean'].whole, 12);
    expect(Math.abs(by['seq-mean-token-mean'].cut - by['seq-mean-token-mean'].whole)).toBeGreaterThan(1e-3);
    expect(Math.abs(by['seq-mean-token-sum-norm'].cut - by['seq-mean-token-sum-norm'].whole)).toBeGreaterThan(1e-3);
  });

  it('refuses a cut that leaves a segment empty', async () => {
    await expect(walk(0, false)).rejects.toThrow(/cut must be/);
    await expect(walk(LONG_T, false)).rejects.toThrow(/cut must be/);
  });
});
