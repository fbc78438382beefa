// The machinery GRPO and RLOO share: one scalar reward per rollout (the task reward plus any
// per-token KL shaping summed over the rollout), a baseline from the other rollouts of the same
// prompt, and that one advantage broadcast onto every action token of the rollout (outcome
// supervision). No critic. A group whose rollouts all got the same reward gives every rollout
// advantage 0: that fraction is logged, because those samples teach nothing (docs/algorithms/grpo.md §2).
// On the GPU: the baselines, their broadcast onto action tokens and whitening are recorded into one
// encoder on the batch's tensors (gpu-advantages.ts); the host sums each rollout's token rewards
// (B numbers, from the rewards it placed itself, KL shaping included) and computes the metrics.
// A compacted rollout is several rows (segments, one rolloutId): it is one member of its group, with
// the task reward once (every segment carries it, for critic GAE) plus the KL shaping of all its
// segments, and its advantage goes onto every segment ("the reward broadcast to segments"); so a
// rollout cut into more segments does not weigh more in its group's baseline. Those baselines are
// computed on the host (the kernels' float64 reference, B numbers) and only the broadcast runs on the GPU.
//
// Shape legend:  B rows · T positions

import { type GroupEstimator, groupBaselinesRef, recordBroadcastAdvantages, recordGroupBaselines } from '@horizon/kernels';
import type { TrainingRows } from '../train/rows.ts';
import type { AdvantageInputs, AdvantageResult } from './algorithm.ts';
import { maskedStats } from './algorithm.ts';
import { rawAdvantagesOf, submitAdvantages } from './gpu-advantages.ts';

export async function groupAdvantages({ gpu, rows, tokenRewards, recipe, batch }: AdvantageInputs, estimator: GroupEstimator): Promise<AdvantageResult> {
  const { B, T, actionMask, groupIds } = rows;
  const rewards = new Float32Array(B);
  for (let b = 0; b < B; b++) for (let t = 0; t < T; t++) rewards[b] += tokenRewards[b * T + t];
  const { whiten } = recipe.rl;
  const rec = gpu.begin('advantages');
  const segmented = rolloutsOfRows(rows, tokenRewards);
  if (segmented) {
    const perRollout = groupBaselinesRef(segmented.rewards, segmented.groupIds, estimator);
    gpu.write(
      batch.rolloutAdvantages,
      Float32Array.from(segmented.rowRollout, (r) => perRollout[r]),
    );
  } else {
    gpu.write(batch.rolloutRewards, rewards);
    gpu.write(batch.groupIds, groupIds);
    recordGroupBaselines(rec, gpu, { rewards: batch.rolloutRewards, groupIds: batch.groupIds, advantages: batch.rolloutAdvantages }, { N: B, estimator });
  }
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
      'rollout/zero_var_groups': segmented ? zeroVarianceGroups(segmented.rewards, segmented.groupIds) : zeroVarianceGroups(rewards, groupIds),
    },
  };
}

/**
 * One reward and group per rollout when some rollout spans several rows (compaction's segments), and
 * each row's rollout index; undefined when every row is its own rollout. A rollout's reward is its
 * task reward once (every segment carries the verifier's reward, so it is read from the first of its
 * rows, which stays right when a segment with nothing to train was left out) plus the KL shaping
 * summed over all its segments.
 */
export function rolloutsOfRows(
  rows: Pick<TrainingRows, 'B' | 'T' | 'rewards' | 'rolloutIds' | 'groupIds'>,
  tokenRewards: Float32Array,
): { rewards: Float64Array; groupIds: Uint32Array; rowRollout: Uint32Array } | undefined {
  const { B, T } = rows;
  const index = new Map<number, number>();
  const rowRollout = new Uint32Array(B);
  for (let b = 0; b < B; b++) {
    const id = rows.rolloutIds[b];
    if (!index.has(id)) index.set(id, index.size);
    rowRollout[b] = index.get(id) as number;
  }
  if (index.size === B) return undefined;
  const rewards = new Float64Array(index.size);
  const groups = new Uint32Array(index.size);
  const seen = new Uint8Array(index.size);
  for (let b = 0; b < B; b++) {
    const r = rowRollout[b];
    groups[r] = rows.groupIds[b];
    let task = 0;
    let shaped = 0;
    for (let t = 0; t < T; t++) {
      task += rows.rewards[b * T + t];
      shaped += tokenRewards[b * T + t];
    }
    rewards[r] += shaped - task + (seen[r] ? 0 : task);
    seen[r] = 1;
  }
  return { rewards, groupIds: groups, rowRollout };
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
