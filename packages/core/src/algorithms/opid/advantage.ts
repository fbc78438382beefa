// OPID's advantage (docs/algorithms/opid.md §4; OPID, arXiv:2606.26790, jinyangwu/OPID
// `gigpo/core_gigpo.py`): the group-relative GRPO advantage of the rollout's reward plus w·Δ_t per
// token, Δ_t = m_t·q_b·(log π(a_t | context + skill) − log π(a_t | context)), computed by the
// kernels' `opidAdvantages` (kernels/src/rl/distill, float64 spec `opidRef`). q_b is 0 for a row no
// skill scored (its Δ is 0 either way: unscored positions keep log π_old). Δ is added after GRPO's
// whitening, as slime adds its on-policy distillation term after normalisation: whitening would
// blow a near-zero Δ up to unit variance.
//
// Shape legend:  B rows · T positions

import { type Gpu, opidAdvantages } from '@horizon/kernels';

export interface SkillScores {
  oldLogp: Float32Array; // [B, T]
  skillLogp: Float32Array; // [B, T]
  skillScored: Uint8Array; // [B, T]
}

/** Â_t = m_t·(Â^GRPO_t + coef·Δ_t). */
export async function skillAdvantages(
  gpu: Gpu,
  grpo: Float32Array,
  scores: SkillScores,
  actionMask: Uint32Array,
  shape: { B: number; T: number; coef: number },
): Promise<Float32Array> {
  const { B, T } = shape;
  const skillWeight = new Float32Array(B);
  for (let b = 0; b < B; b++) skillWeight[b] = scores.skillScored.subarray(b * T, (b + 1) * T).some((s) => s === 1) ? 1 : 0;
  const { advantages } = await opidAdvantages(
    gpu,
    { episodeAdvantages: grpo, augmentedLogp: scores.skillLogp, originalLogp: scores.oldLogp, mask: actionMask, skillWeight },
    { B, T, weight: shape.coef },
  );
  return advantages;
}

/** Mean Δ over the positions a skill scored, and what fraction of the action tokens those are. */
export function skillDeltaStats(scores: SkillScores, actionMask: ArrayLike<number>): { meanDelta: number; scoredFraction: number } {
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
