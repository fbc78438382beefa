// Group baselines on the GPU (GRPO, Dr.GRPO, RLOO) and the broadcast of per-sample advantages onto
// action tokens. Math and conventions: group-baselines.ref.ts.
//
// Shapes: rewards, advantages [N] f32; groupIds [N] u32; mask, tokenAdvantages [B, T].

import type { Gpu, Recorder } from '../../gpu/runtime.ts';
import type { Tensor } from '../../gpu/tensor.ts';
import { f32Bits } from '../../gpu/wgsl.ts';
import { checkArray, checkMask, checkNumber, checkSizes, checkTensor } from '../../util/checks.ts';
import { withScope } from '../common/scope.ts';
import { GRPO_EPS, type GroupEstimator } from './group-baselines.ref.ts';
import { broadcastWgsl, GROUP_ESTIMATOR_CODE, GROUP_WORKGROUP, groupBaselinesWgsl } from './group-baselines.wgsl.ts';

function grid(gpu: Gpu, n: number): [number, number] {
  const groups = Math.max(1, Math.ceil(n / GROUP_WORKGROUP));
  const limit = gpu.device.limits.maxComputeWorkgroupsPerDimension;
  const y = Math.ceil(groups / limit);
  return [Math.ceil(groups / y), y];
}

function checkEstimator(estimator: GroupEstimator): void {
  if (!(estimator in GROUP_ESTIMATOR_CODE)) throw new RangeError(`groupBaselines: estimator must be grpo, dr-grpo or rloo, got ${String(estimator)}`);
}

/** Records advantages[i] from the rewards of sample i's group. */
export function recordGroupBaselines(
  rec: Recorder,
  gpu: Gpu,
  t: { rewards: Tensor; groupIds: Tensor; advantages: Tensor },
  options: { N: number; estimator: GroupEstimator; eps?: number },
): void {
  const { N, estimator } = options;
  checkSizes('groupBaselines', { N });
  checkEstimator(estimator);
  const eps = options.eps ?? GRPO_EPS;
  checkNumber('groupBaselines', 'eps', eps, 0, 1);
  checkTensor('groupBaselines', 'rewards', t.rewards, N, 'f32');
  checkTensor('groupBaselines', 'groupIds', t.groupIds, N, 'u32');
  checkTensor('groupBaselines', 'advantages', t.advantages, N, 'f32');
  const pipeline = gpu.pipeline(groupBaselinesWgsl(), 'main', 'rl_group_baselines');
  rec.dispatch(pipeline, [t.rewards, t.groupIds, t.advantages, gpu.uniform([N, GROUP_ESTIMATOR_CODE[estimator], f32Bits(eps)])], ...grid(gpu, N));
}

/** Records tokenAdvantages[b, t] = mask[b, t]·sampleAdvantages[b] (outcome supervision: one advantage per sample). */
export function recordBroadcastAdvantages(
  rec: Recorder,
  gpu: Gpu,
  t: { sampleAdvantages: Tensor; mask: Tensor; tokenAdvantages: Tensor },
  shape: { B: number; T: number },
): void {
  const { B, T } = shape;
  checkSizes('broadcastAdvantages', { B, T });
  checkTensor('broadcastAdvantages', 'sampleAdvantages', t.sampleAdvantages, B, 'f32');
  checkTensor('broadcastAdvantages', 'mask', t.mask, B * T, 'u32');
  checkTensor('broadcastAdvantages', 'tokenAdvantages', t.tokenAdvantages, B * T, 'f32');
  const pipeline = gpu.pipeline(broadcastWgsl(), 'main', 'rl_broadcast_advantages');
  rec.dispatch(pipeline, [t.sampleAdvantages, t.mask, t.tokenAdvantages, gpu.uniform([B * T, Math.max(T, 1)])], ...grid(gpu, B * T));
}

/**
 * Host API: per-sample advantages from outcome rewards within groups (same prompt), in reward units
 * (GRPO: dimensionless).
 *   grpo:    (R_i − mean_g)/(std_g + ε), sample std (n − 1), ε = 1e-6
 *   dr-grpo: R_i − mean_g
 *   rloo:    R_i − mean of the other members = n/(n − 1)·(R_i − mean_g)
 * A single-sample group gets 0. With `actionMask` [B, T] (B = N samples of T tokens) the result is
 * also broadcast onto action tokens as `tokenAdvantages`.
 */
export async function groupBaselines(
  gpu: Gpu,
  inputs: { rewards: Float32Array; groupIds: Uint32Array; actionMask?: Uint32Array },
  options: { estimator: GroupEstimator; eps?: number; T?: number },
): Promise<{ advantages: Float32Array; tokenAdvantages?: Float32Array }> {
  const N = inputs.rewards.length;
  checkArray('groupBaselines', 'rewards', inputs.rewards, N);
  checkArray('groupBaselines', 'groupIds', inputs.groupIds, N);
  checkEstimator(options.estimator);
  const T = options.T ?? 0;
  if (inputs.actionMask) {
    checkSizes('groupBaselines', { T });
    checkMask('groupBaselines', 'actionMask', inputs.actionMask, N * T);
  }
  return withScope(gpu, async (s) => {
    const advantages = s.tensor(N, 'f32', 'advantages');
    const tokens = inputs.actionMask ? s.tensor(N * T, 'f32', 'tokenAdvantages') : undefined;
    const rewards = s.upload(inputs.rewards, 'rewards');
    const groupIds = s.upload(inputs.groupIds, 'groupIds');
    const mask = inputs.actionMask ? s.upload(inputs.actionMask, 'actionMask') : undefined;
    gpu.run((rec) => {
      recordGroupBaselines(rec, gpu, { rewards, groupIds, advantages }, { N, ...options });
      if (tokens && mask) recordBroadcastAdvantages(rec, gpu, { sampleAdvantages: advantages, mask, tokenAdvantages: tokens }, { B: N, T });
    }, 'groupBaselines');
    const result: { advantages: Float32Array; tokenAdvantages?: Float32Array } = { advantages: await s.read(advantages) };
    if (tokens) result.tokenAdvantages = await s.read(tokens);
    return result;
  });
}
