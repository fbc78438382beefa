// The machinery GRPO and RLOO share: one scalar reward per rollout (the task reward plus any
// per-token KL shaping summed over the rollout), a baseline from the other rollouts of the same
// prompt, and that one advantage broadcast onto every action token of the rollout (outcome
// supervision). No critic. A group whose rollouts all got the same reward gives every rollout
// advantage 0: that fraction is logged, because those samples teach nothing (docs/algorithms/grpo.md §2).
// On the GPU: the baselines, their broadcast onto action tokens and whitening are recorded into one
// encoder on the batch's tensors (gpu-advantages.ts); the host sums each rollout's token rewards
// (B numbers, from the rewards it placed itself, KL shaping included) and computes the metrics.
//
// Shape legend:  B rows · T positions

import { type GroupEstimator, recordBroadcastAdvantages, recordGroupBaselines } from '@horizon/kernels';
import type { AdvantageInputs, AdvantageResult } from './algorithm.ts';
import { maskedStats } from './algorithm.ts';
import { rawAdvantagesOf, submitAdvantages } from './gpu-advantages.ts';

export async function groupAdvantages({ gpu, rows, tokenRewards, recipe, batch }: AdvantageInputs, estimator: GroupEstimator): Promise<AdvantageResult> {
  const { B, T, actionMask, groupIds } = rows;
  const rewards = new Float32Array(B);
  for (let b = 0; b < B; b++) for (let t = 0; t < T; t++) rewards[b] += tokenRewards[b * T + t];
  gpu.write(batch.rolloutRewards, rewards);
  gpu.write(batch.groupIds, groupIds);
  const { whiten } = recipe.rl;
  const rec = gpu.begin('advantages');
  recordGroupBaselines(rec, gpu, { rewards: batch.rolloutRewards, groupIds: batch.groupIds, advantages: batch.rolloutAdvantages }, { N: B, estimator });
  recordBroadcastAdvantages(
    rec,
    gpu,
    { sampleAdvantages: batch.rolloutAdvantages, mask: batch.mask, tokenAdvantages: rawAdvantagesOf(batch, whiten) },
    { B, T },
  );
  // No critic: the targets are zeros, on the GPU as on the host.
  rec.clear(batch.returns);
  const recorded = await submitAdvantages(gpu, rec, batch, { whiten, returns: false });
  const raw = maskedStats(recorded.raw, actionMask);
  return {
    advantages: recorded.advantages,
    returns: new Float32Array(B * T),
    onGpu: true,
    metrics: {
      'rollout/advantage_mean': raw.mean,
      'rollout/advantage_std': raw.std,
      'rollout/zero_var_groups': zeroVarianceGroups(rewards, groupIds),
    },
  };
}

/** Fraction of groups whose rewards are all equal. */
export function zeroVarianceGroups(rewards: ArrayLike<number>, groupIds: ArrayLike<number>): number {
  const byGroup = new Map<number, number[]>();
  for (let i = 0; i < rewards.length; i++) {
    const list = byGroup.get(groupIds[i]) ?? [];
    list.push(rewards[i]);
    byGroup.set(groupIds[i], list);
  }
  let flat = 0;
  for (const list of byGroup.values()) if (list.every((r) => r === list[0])) flat++;
  return byGroup.size > 0 ? flat / byGroup.size : 0;
}
