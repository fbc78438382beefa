// The GRPO/RLOO walkthrough's numbers: one group of rewards through the group-baseline kernel three
// times, once per estimator (docs/algorithms/grpo.md, docs/algorithms/rloo.md): GRPO's z-score with
// the sample std, Dr.GRPO's mean-only baseline (arXiv:2503.20783) and RLOO's leave-one-out mean.
// The advantages are the kernel's; the group mean and std the worked equations quote are float64
// here (the kernel does not return them). Without WebGPU the float64 reference fills in.

import { type Gpu, GRPO_EPS, type GroupEstimator, groupBaselines, groupBaselinesRef } from '@horizon/kernels';
import type { GroupsAnswer, GroupsRequest } from './walk-api.ts';
import { GROUP_MAX } from './walk-data.ts';

export function checkGroupsRequest(r: GroupsRequest): void {
  const G = r.rewards.length;
  if (!(G >= 1 && G <= GROUP_MAX)) throw new RangeError(`groups walkthrough: a group holds 1 to ${GROUP_MAX} completions, got ${G}`);
  for (const [i, x] of r.rewards.entries()) {
    if (!(Number.isFinite(x) && Math.abs(x) <= 100))
      throw new RangeError(`groups walkthrough: reward ${i + 1} must be a finite number in [−100, 100], got ${x}`);
  }
}

export async function computeGroupsWalk(gpu: Gpu | null, request: GroupsRequest, deviceLine: string): Promise<GroupsAnswer> {
  checkGroupsRequest(request);
  const started = performance.now();
  const rewards = Float32Array.from(request.rewards);
  const groupIds = new Uint32Array(rewards.length);
  const of = async (estimator: GroupEstimator): Promise<number[]> =>
    Array.from(gpu ? (await groupBaselines(gpu, { rewards, groupIds }, { estimator })).advantages : groupBaselinesRef(rewards, groupIds, estimator));
  const grpo = await of('grpo');
  const drGrpo = await of('dr-grpo');
  const rloo = await of('rloo');
  const G = rewards.length;
  const mean = rewards.reduce((a, x) => a + x, 0) / G;
  const std = G > 1 ? Math.sqrt(rewards.reduce((a, x) => a + (x - mean) ** 2, 0) / (G - 1)) : 0;
  return {
    request: { ...request, rewards: [...request.rewards] },
    grpo,
    drGrpo,
    rloo,
    mean,
    std,
    eps: GRPO_EPS,
    allEqual: rewards.every((x) => x === rewards[0]),
    computedOn: gpu ? 'gpu' : 'cpu',
    deviceLine,
    millis: performance.now() - started,
  };
}
