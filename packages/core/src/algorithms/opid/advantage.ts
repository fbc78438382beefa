// OPID's advantage (docs/algorithms/opid.md §4): the group-relative GRPO advantage of the rollout's
// reward plus coef·Δ_t per token, Δ_t = log π(a_t | context + skill) − log π(a_t | context). Δ is added
// after GRPO's whitening, as slime adds its on-policy distillation term after normalisation
// (`apply_opd_kl_to_advantages`): whitening would blow a near-zero Δ up to unit variance.
//
// Shape legend:  B rows · T positions

/** Â_t = Â^GRPO_t + coef·(skillLogp_t − oldLogp_t) on action tokens, 0 elsewhere. */
export function skillAdvantages(
  grpo: Float32Array,
  scores: { oldLogp: Float32Array; skillLogp: Float32Array },
  actionMask: ArrayLike<number>,
  coef: number,
): Float32Array {
  return Float32Array.from(grpo, (a, i) => (actionMask[i] ? a + coef * (scores.skillLogp[i] - scores.oldLogp[i]) : 0));
}

/** Mean Δ over the positions a skill scored, and what fraction of the action tokens those are. */
export function skillDeltaStats(
  scores: { oldLogp: Float32Array; skillLogp: Float32Array; skillScored: Uint8Array },
  actionMask: ArrayLike<number>,
): { meanDelta: number; scoredFraction: number } {
  let actions = 0;
  let scored = 0;
  let sum = 0;
  for (let i = 0; i < actionMask.length; i++) {
    if (!actionMask[i]) continue;
    actions++;
    if (!scores.skillScored[i]) continue;
    scored++;
    sum += scores.skillLogp[i] - scores.oldLogp[i];
  }
  return { meanDelta: scored > 0 ? sum / scored : 0, scoredFraction: actions > 0 ? scored / actions : 0 };
}
