// Which of an iteration's samples the update trains on, and how many were left out and why
// (docs/algorithms/README.md §6, "What trains"). In order:
//   1. a rollout whose status does not train (envs/rollout-status.ts STATUS_RULES: aborted — the
//      sampler gave up on its row — or failed — its environment or verifier threw) leaves its group;
//   2. a sample with no trainable token is skipped: it has nothing to put a loss on, and a group
//      method cannot give it an advantage (its loss scale would be 0 anyway, never a NaN);
//   3. for a method whose advantages compare the rollouts of one prompt (Algorithm.grouped), a group
//      left with fewer than 2 valid rollouts is dropped: one rollout has no baseline to compare with;
//   4. with `rl.dynamicSampling`, a group whose valid rollouts all got the same reward is dropped
//      (DAPO, arXiv:2503.14476, §3.2): its group advantages are all 0, so it only dilutes the batch.
// DAPO keeps sampling until the batch is full again; Horizon does not resample, so the batch shrinks
// (rollout/trained_samples) and the minibatches split what is left (minibatchBounds below).

import { STATUS_RULES } from '../envs/rollout-status.ts';
import type { Sample } from '../envs/sample.ts';
import { actionTokenCount } from '../envs/sample.ts';
import type { MetricName } from '../metrics/glossary.ts';

export interface SelectionOptions {
  /** The method's advantages compare rollouts of one prompt (GRPO, Dr.GRPO, RLOO). */
  grouped: boolean;
  /** Drop groups whose rewards are all equal (rl.dynamicSampling). */
  dynamicSampling: boolean;
}

export interface RolloutSelection {
  /** Indices of the samples to train on, in batch order. */
  kept: number[];
  metrics: Partial<Record<MetricName, number>>;
}

export function selectTrainable(samples: readonly Sample[], options: SelectionOptions): RolloutSelection {
  // A rollout may be several samples (its compacted segments, its sub-agents' contexts), all with
  // its rollout id and status: rollouts are counted by id, and a group's size is its distinct ids.
  const failed = new Set<number>();
  const aborted = new Set<number>();
  let untrainable = 0;
  const valid: number[] = [];
  for (const [i, s] of samples.entries()) {
    if (!STATUS_RULES[s.status].trains) (s.status === 'aborted' ? aborted : failed).add(s.rolloutId);
    else if (actionTokenCount(s) === 0) untrainable++;
    else valid.push(i);
  }
  let kept = valid;
  let droppedGroups = 0;
  if (options.grouped || options.dynamicSampling) {
    const groups = new Map<number, number[]>();
    for (const i of valid) groups.set(samples[i].groupId, [...(groups.get(samples[i].groupId) ?? []), i]);
    const dropped = new Set<number>();
    for (const members of groups.values()) {
      const tooFew = options.grouped && new Set(members.map((i) => samples[i].rolloutId)).size < 2;
      const flat = options.dynamicSampling && members.every((i) => samples[i].reward === samples[members[0]].reward);
      if (!tooFew && !flat) continue;
      droppedGroups++;
      for (const i of members) dropped.add(i);
    }
    kept = valid.filter((i) => !dropped.has(i));
  }
  return {
    kept,
    metrics: {
      'rollout/failed_rollouts': failed.size,
      'rollout/aborted_rollouts': aborted.size,
      'rollout/untrainable_samples': untrainable,
      'rollout/dropped_groups': droppedGroups,
      'rollout/dropped_samples': samples.length - kept.length,
      'rollout/trained_samples': kept.length,
    },
  };
}

/**
 * [start, end) of each of `minibatches` minibatches over `B` shuffled rows: near-equal parts, sizes
 * differing by at most one, so a batch shrunk by drops still takes every row once per epoch. When
 * `minibatches` divides B (the recipe check requires it of the full batch) these are the equal slices
 * k·B/M … (k+1)·B/M; with fewer rows than minibatches the empty ones are left out.
 */
export function minibatchBounds(B: number, minibatches: number): [number, number][] {
  const bounds: [number, number][] = [];
  for (let k = 0; k < minibatches; k++) {
    const start = Math.floor((k * B) / minibatches);
    const end = Math.floor(((k + 1) * B) / minibatches);
    if (end > start) bounds.push([start, end]);
  }
  return bounds;
}
