// Float64 reference sampler: the distribution of sample.wgsl.ts written from its definition (sort
// for the top-k set, float64 CDF), drawing with the TypeScript Philox so it sees the GPU's uniforms.
//
// Shape legend:  B rows · V vocabulary
//   logits: [B, V] (or [R, V] with logitsRows: [B] choosing the row of each draw) · counters: [B] · tokens, logp, u: [B]

import { samplingUniform } from './philox.ts';
import type { SampleOptions, SampleShape } from './sample.ts';

export interface SampleRefRow {
  token: number;
  /** log π(token) under the τ-scaled, top-k-restricted distribution (0 when greedy). */
  logp: number;
  /** The uniform drawn for the row. */
  u: number;
  /** The top-k set in token-id order and their probabilities π (for tests and diagnostics). */
  ids: number[];
  probs: number[];
}

export function sampleRef(
  logits: ArrayLike<number>,
  { B, V }: SampleShape,
  options: SampleOptions,
  counters?: ArrayLike<number>,
  logitsRows?: ArrayLike<number>,
  /** [B, 2]: key draw b by (keys[2b], keys[2b + 1]) instead of its row index. */
  keys?: ArrayLike<number>,
): SampleRefRow[] {
  const { temperature, topK = 0, seed, stream = 0 } = options;
  const rows: SampleRefRow[] = [];
  for (let b = 0; b < B; b++) {
    const r = logitsRows ? logitsRows[b] : b;
    const row = Array.from({ length: V }, (_, j) => logits[r * V + j]);
    // Descending by logit, ascending id on ties.
    const order = row.map((_, j) => j).sort((i, j) => row[j] - row[i] || i - j);
    const u = samplingUniform(seed, stream, counters ? counters[b] : 0, b, keys ? [keys[2 * b], keys[2 * b + 1]] : undefined);
    if (temperature === 0) {
      rows.push({ token: order[0], logp: 0, u, ids: [order[0]], probs: [1] });
      continue;
    }
    const ids = (topK > 0 && topK < V ? order.slice(0, topK) : order).sort((i, j) => i - j);
    const z = ids.map((j) => row[j] / temperature);
    const max = Math.max(...z);
    const total = z.reduce((s, zj) => s + Math.exp(zj - max), 0);
    const probs = z.map((zj) => Math.exp(zj - max) / total);
    let chosen = ids.length - 1;
    let cdf = 0;
    for (let i = 0; i < ids.length; i++) {
      cdf += probs[i];
      if (cdf > u) {
        chosen = i;
        break;
      }
    }
    rows.push({ token: ids[chosen], logp: Math.log(probs[chosen]), u, ids, probs });
  }
  return rows;
}
