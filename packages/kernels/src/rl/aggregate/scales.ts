// Loss aggregation as per-sample scales: every reducer of docs/algorithms/README.md §3 is
//   loss = Σ_b Σ_t m[b,t] · scale[b] · L[b,t]
// with scale[b] built from denominators over the WHOLE batch. A minibatch then sums its own rows
// with the same scales, so its loss is its share of the batch loss and the minibatch losses add up
// to the batch loss (docs/algorithms/README.md §3: per-minibatch denominators are the bug of verl#5625 and
// the regression OpenRLHF's tests/test_loss_aggregation.py guards). The gradient of the loss with
// respect to L[b,t] is m[b,t]·scale[b], which is what the loss kernels multiply their gradients by.
//
// Shapes: B samples (rows), T tokens; counts [B] = action tokens per sample.

import { checkArray, checkMask, checkNumber, checkSizes } from '../../util/checks.ts';

/** Every reducer below; the recipe's `rl.lossAggregation` choices are this list. */
export const LOSS_AGGREGATIONS = ['token-mean', 'seq-mean-token-mean', 'seq-mean-token-sum-norm', 'per-rollout-mean'] as const;

export type LossAggregation = (typeof LOSS_AGGREGATIONS)[number];

export interface AggregationOptions {
  /**
   * - `token-mean`: Σ m L / Σ m over the batch (DAPO, VAPO, SAO, CompactionRL; GLM-5.2's "token-level loss").
   * - `seq-mean-token-mean`: (1/B') Σ_b (Σ_t m L / n_b) (original GRPO).
   * - `seq-mean-token-sum-norm`: (1/B') Σ_b Σ_t m L / C with a constant C (Dr.GRPO).
   * - `per-rollout-mean`: each rollout's tokens divided by that rollout's action tokens over all its
   *   segments, then the mean over rollouts (slime's default reducer with `rollout_mask_sums`).
   *
   * B' counts samples with at least one action token (verl excludes fully masked sequences).
   */
  mode: LossAggregation;
  /** `per-rollout-mean`: the rollout each sample (segment) belongs to, [B] non-negative integers. */
  rolloutIds?: ArrayLike<number>;
  /** `seq-mean-token-sum-norm`: the constant C (tokens), e.g. the maximum response length; default T. */
  constant?: number;
}

/** Action tokens per sample: counts[b] = Σ_t mask[b, t]. */
export function actionCounts(mask: ArrayLike<number>, B: number, T: number): Uint32Array {
  checkSizes('actionCounts', { B, T });
  checkMask('actionCounts', 'mask', mask, B * T);
  const counts = new Uint32Array(B);
  for (let b = 0; b < B; b++) {
    let n = 0;
    for (let t = 0; t < T; t++) n += mask[b * T + t];
    counts[b] = n;
  }
  return counts;
}

/**
 * Per-sample scales for `options.mode` from the action-token counts of the whole batch, so that
 * loss = Σ_b Σ_t m·scale[b]·L. Samples without action tokens get scale 0; an empty batch gives all 0.
 */
export function lossScales(counts: ArrayLike<number>, options: AggregationOptions & { T?: number }): Float32Array {
  const B = counts.length;
  checkArray('lossScales', 'counts', counts, B);
  for (let b = 0; b < B; b++) {
    if (!Number.isInteger(counts[b]) || counts[b] < 0) throw new RangeError(`lossScales: counts[${b}] must be a non-negative integer, got ${counts[b]}`);
  }
  const scales = new Float32Array(B);
  const present = Array.from(counts, (n) => (n > 0 ? 1 : 0)).reduce((a: number, x) => a + x, 0);
  switch (options.mode) {
    case 'token-mean': {
      let total = 0;
      for (let b = 0; b < B; b++) total += counts[b];
      for (let b = 0; b < B; b++) scales[b] = counts[b] > 0 ? 1 / total : 0;
      return scales;
    }
    case 'seq-mean-token-mean':
      for (let b = 0; b < B; b++) scales[b] = counts[b] > 0 ? 1 / (present * counts[b]) : 0;
      return scales;
    case 'seq-mean-token-sum-norm': {
      const C = options.constant ?? options.T;
      if (C === undefined) throw new RangeError('lossScales: seq-mean-token-sum-norm needs constant (or T)');
      checkNumber('lossScales', 'constant', C, Number.MIN_VALUE, Number.MAX_VALUE);
      for (let b = 0; b < B; b++) scales[b] = counts[b] > 0 ? 1 / (present * C) : 0;
      return scales;
    }
    case 'per-rollout-mean': {
      const ids = options.rolloutIds;
      if (ids === undefined) throw new RangeError('lossScales: per-rollout-mean needs rolloutIds, one per sample');
      checkArray('lossScales', 'rolloutIds', ids, B);
      const perRollout = new Map<number, number>();
      for (let b = 0; b < B; b++) {
        if (!Number.isInteger(ids[b]) || ids[b] < 0) throw new RangeError(`lossScales: rolloutIds[${b}] must be a non-negative integer, got ${ids[b]}`);
        perRollout.set(ids[b], (perRollout.get(ids[b]) ?? 0) + counts[b]);
      }
      let rollouts = 0;
      for (const n of perRollout.values()) if (n > 0) rollouts++;
      for (let b = 0; b < B; b++) scales[b] = counts[b] > 0 ? 1 / (rollouts * (perRollout.get(ids[b]) as number)) : 0;
      return scales;
    }
    default:
      throw new RangeError(`lossScales: mode must be one of ${LOSS_AGGREGATIONS.join(', ')}, got ${String(options.mode)}`);
  }
}

/** The scales a host API uses: given ones (checked), or built from the mask with `options`. */
export function resolveScales(
  kernel: string,
  mask: ArrayLike<number>,
  B: number,
  T: number,
  given: ArrayLike<number> | undefined,
  options: Partial<AggregationOptions> | undefined,
): Float32Array {
  if (given !== undefined) {
    checkArray(kernel, 'scales', given, B);
    for (let b = 0; b < B; b++) if (given[b] < 0) throw new RangeError(`${kernel}: scales[${b}] must be non-negative, got ${given[b]}`);
    return Float32Array.from(given);
  }
  return lossScales(actionCounts(mask, B, T), { ...options, mode: options?.mode ?? 'token-mean', T });
}
