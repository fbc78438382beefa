// What all-equal reward groups contribute to a batch. GRPO and RLOO both give every rollout of a
// group whose task rewards are all equal a zero baseline-subtracted reward (DAPO, Yu et al. 2025,
// arXiv 2503.14476, §3.2: such groups give no gradient, hence its dynamic sampling). What reaches
// the policy here is not always zero: KL placed in the reward makes the summed rewards differ
// within a group, and whitening over the batch shifts zeros to −mean/std. The probe measures the
// advantages the update actually uses, on the batch the next iteration trains on.
//
// The share of Σ|A| stands in for the gradient contribution: a token's policy-gradient term is
// A·∇log π, so the advantage scales it (the gradient's own norm per token is not measured).
//
// Shape legend:  B rows · T positions

import type { GroupProbe } from './results.ts';

export interface ProbeBatch {
  B: number;
  T: number;
  /** [B, T] task rewards where the episode placed them (no KL shaping). */
  rewards: ArrayLike<number>;
  /** [B] the prompt group of each row. */
  groupIds: ArrayLike<number>;
  /** [B, T] 1 on action tokens. */
  actionMask: ArrayLike<number>;
  /** [B, T] the advantages the policy update uses (after whitening, if any). */
  advantages: ArrayLike<number>;
}

export function probeGroups(batch: ProbeBatch, iteration: number): GroupProbe {
  const { B, T, rewards, groupIds, actionMask, advantages } = batch;
  const rowReward = new Float64Array(B);
  for (let b = 0; b < B; b++) for (let t = 0; t < T; t++) rowReward[b] += rewards[b * T + t];
  const first = new Map<number, number>();
  const flatGroup = new Map<number, boolean>();
  for (let b = 0; b < B; b++) {
    const g = groupIds[b];
    if (!first.has(g)) {
      first.set(g, rowReward[b]);
      flatGroup.set(g, true);
    } else if (rowReward[b] !== first.get(g)) flatGroup.set(g, false);
  }
  let flatSum = 0;
  let flatCount = 0;
  let otherSum = 0;
  let otherCount = 0;
  for (let b = 0; b < B; b++) {
    const flat = flatGroup.get(groupIds[b]) === true;
    for (let t = 0; t < T; t++) {
      if (!actionMask[b * T + t]) continue;
      const magnitude = Math.abs(advantages[b * T + t]);
      if (flat) {
        flatSum += magnitude;
        flatCount++;
      } else {
        otherSum += magnitude;
        otherCount++;
      }
    }
  }
  const groups = [...flatGroup.values()];
  const total = flatSum + otherSum;
  return {
    iteration,
    flatFraction: groups.length > 0 ? groups.filter(Boolean).length / groups.length : 0,
    flatAdvantageShare: total > 0 ? flatSum / total : 0,
    flatMeanAbsAdvantage: flatCount > 0 ? flatSum / flatCount : 0,
    otherMeanAbsAdvantage: otherCount > 0 ? otherSum / otherCount : 0,
  };
}
