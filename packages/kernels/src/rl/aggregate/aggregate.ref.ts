// Float64 reference for the loss reducers, written from the formulas of docs/algorithms/README.md §3 (not
// from the per-sample scales the GPU path uses, so the two check each other).
//
// Shapes: values [B, T], mask [B, T] (0/1), rolloutIds [B].

import type { AggregationOptions } from './scales.ts';

export function aggregateRef(values: ArrayLike<number>, mask: ArrayLike<number>, B: number, T: number, options: AggregationOptions): number {
  const rowSum = (b: number) => {
    let s = 0;
    for (let t = 0; t < T; t++) s += mask[b * T + t] * values[b * T + t];
    return s;
  };
  const rowCount = (b: number) => {
    let n = 0;
    for (let t = 0; t < T; t++) n += mask[b * T + t];
    return n;
  };
  const rows = Array.from({ length: B }, (_, b) => b).filter((b) => rowCount(b) > 0);
  if (rows.length === 0) return 0;
  switch (options.mode) {
    case 'token-mean': {
      let s = 0;
      let n = 0;
      for (const b of rows) {
        s += rowSum(b);
        n += rowCount(b);
      }
      return s / n;
    }
    case 'seq-mean-token-mean':
      return rows.reduce((acc, b) => acc + rowSum(b) / rowCount(b), 0) / rows.length;
    case 'seq-mean-token-sum-norm': {
      const C = options.constant ?? T;
      return rows.reduce((acc, b) => acc + rowSum(b) / C, 0) / rows.length;
    }
    case 'per-rollout-mean': {
      const ids = options.rolloutIds as ArrayLike<number>;
      const sums = new Map<number, { s: number; n: number }>();
      for (const b of rows) {
        const entry = sums.get(ids[b]) ?? { s: 0, n: 0 };
        entry.s += rowSum(b);
        entry.n += rowCount(b);
        sums.set(ids[b], entry);
      }
      let total = 0;
      for (const { s, n } of sums.values()) total += s / n;
      return total / sums.size;
    }
  }
}
