import { describe, expect, it } from 'vitest';
import { testGpu } from '../../testing/node-gpu.ts';
import { SeededRandom } from '../../util/seeded-random.ts';
import { aggregateRef } from './aggregate.ref.ts';
import { aggregate } from './aggregate.ts';
import { actionCounts, LOSS_AGGREGATIONS, type LossAggregation, lossScales } from './scales.ts';

const rng = new SeededRandom(11);

function randomMask(n: number, p = 0.7): Uint32Array {
  return Uint32Array.from({ length: n }, () => (rng.next() < p ? 1 : 0));
}

/** Σ_b Σ_t m·scale·L in float64, from the scales: the share of rows `rows` in the batch loss. */
function shareOf(values: ArrayLike<number>, mask: ArrayLike<number>, scales: ArrayLike<number>, T: number, rows: number[]): number {
  let s = 0;
  for (const b of rows) for (let t = 0; t < T; t++) s += mask[b * T + t] * scales[b] * values[b * T + t];
  return s;
}

describe('loss aggregation', () => {
  it('scales reproduce each reducer formula, including an all-masked row', () => {
    const B = 5;
    const T = 7;
    const values = rng.uniformArray(B * T, -3, 3);
    const mask = randomMask(B * T);
    mask.fill(0, 2 * T, 3 * T); // row 2 has no action tokens
    const rolloutIds = [0, 0, 1, 2, 2];
    const counts = actionCounts(mask, B, T);
    for (const mode of LOSS_AGGREGATIONS) {
      const options = { mode, rolloutIds, constant: 9 };
      const scales = lossScales(counts, options);
      expect(scales[2]).toBe(0);
      const all = [0, 1, 2, 3, 4];
      expect(shareOf(values, mask, scales, T, all)).toBeCloseTo(aggregateRef(values, mask, B, T, options), 6);
    }
  });

  it('GPU matches the reference for every mode on an awkward size', async () => {
    const gpu = await testGpu();
    const B = 6;
    const T = 301; // B·T = 1806: several workgroups, the last one partial
    const values = rng.uniformArray(B * T, -2, 2);
    const mask = randomMask(B * T);
    const rolloutIds = [3, 3, 3, 1, 0, 1];
    for (const mode of LOSS_AGGREGATIONS) {
      const got = await aggregate(gpu, { values, mask }, { B, T, mode, rolloutIds, constant: 400 });
      expect([got]).toBeAllClose([aggregateRef(values, mask, B, T, { mode, rolloutIds, constant: 400 })], { atol: 1e-6, rtol: 1e-5, name: mode });
    }
  });

  it('minibatch losses computed with batch-wide scales add up to the batch loss', async () => {
    const gpu = await testGpu();
    const B = 8;
    const T = 33;
    const values = rng.uniformArray(B * T);
    const mask = randomMask(B * T, 0.5);
    const counts = actionCounts(mask, B, T);
    for (const mode of ['token-mean', 'seq-mean-token-mean'] as LossAggregation[]) {
      const scales = lossScales(counts, { mode });
      const full = await aggregate(gpu, { values, mask, scales }, { B, T });
      let parts = 0;
      for (const rows of [
        [0, 1, 2],
        [3, 4, 5, 6, 7],
      ]) {
        const pick = (a: Float32Array | Uint32Array) => rows.flatMap((b) => Array.from(a.subarray(b * T, (b + 1) * T)));
        parts += await aggregate(
          gpu,
          { values: Float32Array.from(pick(values)), mask: Uint32Array.from(pick(mask)), scales: Float32Array.from(rows.map((b) => scales[b])) },
          { B: rows.length, T },
        );
      }
      expect(parts).toBeCloseTo(full, 5);
      // Per-minibatch denominators would not add up: the regression OpenRLHF guards.
      const perMinibatch = await aggregate(gpu, { values: values.slice(0, 3 * T), mask: mask.slice(0, 3 * T) }, { B: 3, T, mode });
      expect(Math.abs(perMinibatch - shareOf(values, mask, scales, T, [0, 1, 2]))).toBeGreaterThan(1e-4);
    }
  });

  it('split invariance under compaction: token-mean and per-rollout-mean unchanged, seq-mean-token-mean not', () => {
    // One trajectory of 12 action tokens plus a second trajectory of 5, first unsplit, then with the
    // first cut into segments of 4 + 8 (same tokens, same per-token losses).
    const loss = Array.from({ length: 17 }, (_, i) => Math.sin(i + 1));
    const whole = { B: 2, T: 12, mask: [...Array(12).fill(1), ...Array(5).fill(1), ...Array(7).fill(0)], values: [...loss, ...Array(7).fill(0)] };
    const split = {
      B: 3,
      T: 12,
      mask: [...Array(4).fill(1), ...Array(8).fill(0), ...Array(8).fill(1), ...Array(4).fill(0), ...Array(5).fill(1), ...Array(7).fill(0)],
      values: [...loss.slice(0, 4), ...Array(8).fill(0), ...loss.slice(4, 12), ...Array(4).fill(0), ...loss.slice(12), ...Array(7).fill(0)],
    };
    const run = (c: typeof whole, mode: LossAggregation, rolloutIds: number[]) => aggregateRef(c.values, c.mask, c.B, c.T, { mode, rolloutIds });
    expect(run(split, 'token-mean', [0, 0, 1])).toBeCloseTo(run(whole, 'token-mean', [0, 1]), 12);
    expect(run(split, 'per-rollout-mean', [0, 0, 1])).toBeCloseTo(run(whole, 'per-rollout-mean', [0, 1]), 12);
    expect(Math.abs(run(split, 'seq-mean-token-mean', [0, 0, 1]) - run(whole, 'seq-mean-token-mean', [0, 1]))).toBeGreaterThan(1e-3);
  });

  it('an empty batch or all-masked batch aggregates to 0', async () => {
    const gpu = await testGpu();
    expect(await aggregate(gpu, { values: new Float32Array(0), mask: new Uint32Array(0) }, { B: 0, T: 4 })).toBe(0);
    expect(await aggregate(gpu, { values: new Float32Array(6).fill(5), mask: new Uint32Array(6) }, { B: 2, T: 3, mode: 'seq-mean-token-mean' })).toBe(0);
  });

  it('bad input throws a RangeError naming the argument', async () => {
    const gpu = await testGpu();
    const mask = new Uint32Array(4).fill(1);
    await expect(aggregate(gpu, { values: new Float32Array(3), mask }, { B: 2, T: 2 })).rejects.toThrow(/values holds 3 values, expected 4/);
    await expect(aggregate(gpu, { values: Float32Array.of(0, Number.NaN, 0, 0), mask }, { B: 2, T: 2 })).rejects.toThrow(/values\[1\] is NaN/);
    await expect(aggregate(gpu, { values: new Float32Array(4), mask: Uint32Array.of(1, 2, 0, 0) }, { B: 2, T: 2 })).rejects.toThrow(/mask\[1\] is 2/);
    await expect(aggregate(gpu, { values: new Float32Array(4), mask }, { B: -2, T: -2 })).rejects.toThrow(/B must be a non-negative integer/);
    await expect(aggregate(gpu, { values: new Float32Array(4), mask }, { B: 2, T: 2, mode: 'per-rollout-mean' })).rejects.toThrow(/rolloutIds/);
  });
});
