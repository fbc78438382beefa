// How far the sampler's log-probs (π_roll, recorded while sampling) are from the trainer's (π_old,
// recomputed by Scorer.score before the update), and truncated importance sampling (TIS) to correct
// the policy loss for it. The two differ when the sampler and the trainer compute differently (top-k,
// a KV cache, reduced precision) or when the rollouts were sampled by an older policy (a lag).
//
// TIS follows verl's and slime's form (verl `compute_policy_loss` with `tis_imp_ratio_cap`; slime
// `--use-tis`): w_t = min(π_old/π_roll, C), detached, multiplies each token's PPO-clip loss. Because
// w_t > 0, w_t·(−min(ρA, clip(ρ)A)) = −min(ρ(w_t A), clip(ρ)(w_t A)), and likewise under the dual clip,
// so weighting the loss is weighting the advantage: the update step's kernels run unchanged on
// w ⊙ A, and clip fractions (which depend on the sign of A only) are unchanged. Left out: TIS's
// sequence-level variants and the lower truncation some papers add (MIS masks, not weights).
//
// Shape legend:  B rows · T positions (arrays are [B, T], flat)

import type { MetricName } from '../metrics/glossary.ts';

/** |log π_roll − log π_old| above this counts as a mismatch (about a 1% disagreement in probability). */
export const MISMATCH_THRESHOLD = 0.01;

/** Mean, max and fraction above MISMATCH_THRESHOLD of |log π_roll − log π_old| over the action tokens. */
export function rolloutMismatch(rolloutLogp: Float32Array, oldLogp: Float32Array, mask: ArrayLike<number>): Partial<Record<MetricName, number>> {
  let n = 0;
  let sum = 0;
  let max = 0;
  let above = 0;
  for (let i = 0; i < mask.length; i++) {
    if (!mask[i]) continue;
    // The same f32 difference the mean always used, so policy/rollout_logp_diff keeps its values.
    const d = Math.fround(Math.abs(Math.fround(rolloutLogp[i] - oldLogp[i])));
    n++;
    sum += d;
    if (d > max) max = d;
    if (d > MISMATCH_THRESHOLD) above++;
  }
  return {
    'policy/rollout_logp_diff': n > 0 ? sum / n : 0,
    'policy/rollout_logp_diff_max': max,
    'policy/rollout_logp_mismatch_frac': n > 0 ? above / n : 0,
  };
}

/** [B, T] advantages weighted by w = min(exp(ℓ_old − ℓ_roll), cap) on action tokens, with the weight's metrics. */
export function truncatedIsAdvantages(
  advantages: Float32Array,
  oldLogp: Float32Array,
  rolloutLogp: Float32Array,
  mask: ArrayLike<number>,
  cap: number,
): { advantages: Float32Array; metrics: Partial<Record<MetricName, number>> } {
  if (!(cap > 0)) throw new RangeError(`the truncated importance sampling cap must be positive, got ${cap}`);
  const out = new Float32Array(advantages.length);
  let n = 0;
  let sum = 0;
  let clipped = 0;
  for (let i = 0; i < advantages.length; i++) {
    if (!mask[i]) continue;
    const ratio = Math.exp(oldLogp[i] - rolloutLogp[i]);
    const w = Math.min(ratio, cap);
    out[i] = advantages[i] * w;
    n++;
    sum += w;
    if (ratio > cap) clipped++;
  }
  return { advantages: out, metrics: { 'policy/tis_weight_mean': n > 0 ? sum / n : 0, 'policy/tis_clip_frac': n > 0 ? clipped / n : 0 } };
}
