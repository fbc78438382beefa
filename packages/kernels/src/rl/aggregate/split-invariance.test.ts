// Split invariance of the loss reducers: compaction cuts one trajectory into segments, each a row
// of its own that shares the rollout id, so a reducer that trains compacted trajectories correctly
// must give the same loss, and the same gradient on every token, whether a trajectory arrives whole
// or cut anywhere. token-mean and per-rollout-mean are invariant; the sequence means are not (a cut
// row counts twice in their mean over rows), shown by a counterexample. The page with the figures:
// docs/experiments/split-invariance.md.
//
// The gradient of the loss with respect to a token's per-token loss L[b,t] is m[b,t]·scale[b]
// (scales.ts), so "the same gradient" is: each token's scale is unchanged by the cut.
//
// Shapes: B rows, T tokens per row; a batch here is a list of trajectories, each a list of per-token
// (loss, mask) pairs, packed one row per trajectory (whole) or one row per segment (cut).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aggregateRef } from './aggregate.ref.ts';
import { type AggregationOptions, actionCounts, type LossAggregation, lossScales } from './scales.ts';

interface Token {
  loss: number;
  trained: 0 | 1;
}
type Trajectory = Token[];

interface Packed {
  values: Float64Array;
  mask: Uint8Array;
  rolloutIds: Uint32Array;
  B: number;
  T: number;
  /** For each packed token (row-major), the (trajectory, index) it came from, or undefined for padding. */
  origin: ([number, number] | undefined)[];
}

/** One row per segment; `cuts[r]` are the positions where trajectory r is cut (sorted, inside it). */
function pack(trajectories: readonly Trajectory[], cuts: readonly (readonly number[])[]): Packed {
  const rows: { tokens: Token[]; rollout: number; from: number }[] = [];
  trajectories.forEach((trajectory, r) => {
    const bounds = [0, ...cuts[r], trajectory.length];
    for (let k = 0; k + 1 < bounds.length; k++) rows.push({ tokens: trajectory.slice(bounds[k], bounds[k + 1]), rollout: r, from: bounds[k] });
  });
  const B = rows.length;
  const T = Math.max(1, ...rows.map((row) => row.tokens.length));
  const packed: Packed = { values: new Float64Array(B * T), mask: new Uint8Array(B * T), rolloutIds: new Uint32Array(B), B, T, origin: [] };
  rows.forEach((row, b) => {
    packed.rolloutIds[b] = row.rollout;
    for (let t = 0; t < T; t++) {
      const token = row.tokens[t];
      packed.origin[b * T + t] = token ? [row.rollout, row.from + t] : undefined;
      if (!token) continue;
      packed.values[b * T + t] = token.loss;
      packed.mask[b * T + t] = token.trained;
    }
  });
  return packed;
}

const optionsFor = (mode: LossAggregation, p: Packed): AggregationOptions => ({ mode, rolloutIds: p.rolloutIds, constant: 8 });

/** The loss (float64 reference) and each trained token's scale, keyed by where the token came from. */
function lossAndScales(mode: LossAggregation, p: Packed): { loss: number; scales: Map<string, number> } {
  const options = optionsFor(mode, p);
  const loss = aggregateRef(p.values, p.mask, p.B, p.T, options);
  const rowScales = lossScales(actionCounts(p.mask, p.B, p.T), options);
  const scales = new Map<string, number>();
  for (let i = 0; i < p.B * p.T; i++) {
    const at = p.origin[i];
    if (at && p.mask[i]) scales.set(`${at[0]}:${at[1]}`, rowScales[Math.floor(i / p.T)]);
  }
  return { loss, scales };
}

const token = fc.record({ loss: fc.double({ min: -4, max: 4, noNaN: true }), trained: fc.constantFrom(0 as const, 1 as const) });
// Every trajectory has at least one trained token, as one that trains at all does.
const trajectory = fc
  .array(token, { minLength: 2, maxLength: 12 })
  .map((tokens): Trajectory => (tokens.some((t) => t.trained) ? tokens : [{ ...tokens[0], trained: 1 }, ...tokens.slice(1)]));
/** A batch and, for each trajectory, cut points strictly inside it. */
const batchWithCuts = fc
  .array(trajectory, { minLength: 1, maxLength: 5 })
  .chain((trajectories) =>
    fc.tuple(
      fc.constant(trajectories),
      fc.tuple(
        ...trajectories.map((t) =>
          fc.uniqueArray(fc.integer({ min: 1, max: t.length - 1 }), { maxLength: Math.min(3, t.length - 1) }).map((c) => [...c].sort((a, b) => a - b)),
        ),
      ),
    ),
  );

describe('split invariance of the loss reducers', () => {
  for (const mode of ['token-mean', 'per-rollout-mean'] as const) {
    it(`${mode}: the loss and every token's gradient are unchanged when trajectories are cut anywhere`, () => {
      fc.assert(
        fc.property(batchWithCuts, ([trajectories, cuts]) => {
          const whole = lossAndScales(
            mode,
            pack(
              trajectories,
              trajectories.map(() => []),
            ),
          );
          const cut = lossAndScales(mode, pack(trajectories, cuts));
          expect(cut.loss).toBeCloseTo(whole.loss, 10);
          expect([...cut.scales.keys()].sort()).toEqual([...whole.scales.keys()].sort());
          // Scales are float32 (what the GPU multiplies by): equal to its precision.
          for (const [at, scale] of whole.scales) expect(Math.abs((cut.scales.get(at) as number) - scale)).toBeLessThanOrEqual(1e-7 * Math.abs(scale));
        }),
        { numRuns: 300 },
      );
    });
  }

  // Two trajectories of 2 and 4 trained tokens, losses 1 and 0: cutting the long one in halves
  // makes it two rows in a mean over rows, so it weighs twice what it did.
  const trajectories: Trajectory[] = [
    [
      { loss: 1, trained: 1 },
      { loss: 1, trained: 1 },
    ],
    [
      { loss: 0, trained: 1 },
      { loss: 0, trained: 1 },
      { loss: 0, trained: 1 },
      { loss: 0, trained: 1 },
    ],
  ];
  for (const [mode, whole, cut] of [
    ['seq-mean-token-mean', 1 / 2, 1 / 3],
    ['seq-mean-token-sum-norm', 2 / 8 / 2, 2 / 8 / 3],
  ] as const) {
    it(`${mode} is not split-invariant: cutting one trajectory in two changes the loss from ${whole.toFixed(4)} to ${cut.toFixed(4)}`, () => {
      expect(lossAndScales(mode, pack(trajectories, [[], []])).loss).toBeCloseTo(whole, 12);
      expect(lossAndScales(mode, pack(trajectories, [[], [2]])).loss).toBeCloseTo(cut, 12);
    });
  }

  it('token-mean and per-rollout-mean give the same figures on that example, whole and cut', () => {
    for (const mode of ['token-mean', 'per-rollout-mean'] as const) {
      const whole = lossAndScales(mode, pack(trajectories, [[], []])).loss;
      expect(lossAndScales(mode, pack(trajectories, [[], [2]])).loss).toBeCloseTo(whole, 12);
    }
    expect(lossAndScales('token-mean', pack(trajectories, [[], []])).loss).toBeCloseTo(2 / 6, 12);
    expect(lossAndScales('per-rollout-mean', pack(trajectories, [[], []])).loss).toBeCloseTo((1 + 0) / 2, 12);
  });
});
