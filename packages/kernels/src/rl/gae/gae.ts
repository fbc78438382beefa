// Token-level GAE on the GPU: launcher, host API and the per-sample helpers the trainer needs.
// Math, value convention and masks: gae.ref.ts. Kernel forms: gae.wgsl.ts.
//
// Shapes: rewards, values, advantages, returns [B, T] f32; actionMask [B, T] u32;
// bootstrap [B] f32; lambdas [B, 2] f32 (λ, λ_critic); info [B, 2] u32 (terminal, tokensAfter).

import type { Gpu, Recorder } from '../../gpu/runtime.ts';
import type { Tensor } from '../../gpu/tensor.ts';
import { f32Bits } from '../../gpu/wgsl.ts';
import { checkArray, checkMask, checkNumber, checkSizes, checkTensor, F32_EXACT_INTEGER, perSample } from '../../util/checks.ts';
import { withScope } from '../common/scope.ts';
import { GAE_LOOP_WORKGROUP, type GaeVariant, gaeWgsl } from './gae.wgsl.ts';

export interface GaeTensors {
  /** rewards: [B, T] f32 — outcome reward on the last action token (`placeOutcomeRewards`), KL shaping per token. */
  rewards: Tensor;
  /** values: [B, T] f32 — V[b, t] = value of the state before token t (read where the logits predicting t are). */
  values: Tensor;
  /** mask: [B, T] u32 — 1 on action (policy-generated) tokens, 0 on observations, prompt and padding. */
  mask: Tensor;
  /** bootstrap: [B] f32 — value after the last token of a truncated sample; ignored where terminal. */
  bootstrap: Tensor;
  /** lambdas: [B, 2] f32 — (λ, λ_critic) per sample, from `gaeSampleParams`. */
  lambdas: Tensor;
  /** info: [B, 2] u32 — (terminal ? 1 : 0, tokensAfter) per sample, from `gaeSampleParams`. */
  info: Tensor;
  /** advantages: [B, T] f32 output — (γλ)^{tokensAfter}·A, 0 off the action mask. */
  advantages: Tensor;
  /** returns: [B, T] f32 output — critic targets A^{λ_critic} + V, 0 off the action mask. */
  returns: Tensor;
}

export interface GaeShape {
  B: number;
  T: number;
  /** Discount γ ∈ [0, 1]. */
  gamma: number;
  /** Kernel form; default `defaultGaeVariant(T, isSoftware)`. Both compute the same recursion. */
  variant?: GaeVariant;
}

/**
 * The form to use for sequences of length T. On a hardware GPU one invocation per sequence leaves
 * most of it idle and walks T dependent steps; the chunked scan has depth 2·⌈T/64⌉ + 64. On a
 * software device (SwiftShader runs invocations on a few CPU cores) the scan's extra work and its
 * two barriers cost more than they save: measured 3.5 ms (loop) vs 24 ms (scan) at 64×512.
 */
export function defaultGaeVariant(T: number, isSoftware: boolean): GaeVariant {
  return !isSoftware && T > 256 ? 'scan' : 'loop';
}

/** Records GAE for B sequences of T tokens. */
export function recordGae(rec: Recorder, gpu: Gpu, t: GaeTensors, shape: GaeShape): void {
  const { B, T, gamma } = shape;
  checkSizes('gae', { B, T });
  checkNumber('gae', 'gamma', gamma, 0, 1);
  for (const [name, tensor, size, dtype] of [
    ['rewards', t.rewards, B * T, 'f32'],
    ['values', t.values, B * T, 'f32'],
    ['mask', t.mask, B * T, 'u32'],
    ['bootstrap', t.bootstrap, B, 'f32'],
    ['lambdas', t.lambdas, 2 * B, 'f32'],
    ['info', t.info, 2 * B, 'u32'],
    ['advantages', t.advantages, B * T, 'f32'],
    ['returns', t.returns, B * T, 'f32'],
  ] as const) {
    checkTensor('gae', name, tensor, size, dtype);
  }
  const variant = shape.variant ?? defaultGaeVariant(T, gpu.report.isSoftware);
  const pipeline = gpu.pipeline(gaeWgsl(variant), 'main', `rl_gae_${variant}`);
  const bindings = [t.rewards, t.values, t.mask, t.bootstrap, t.lambdas, t.info, t.advantages, t.returns, gpu.uniform([B, T, f32Bits(gamma)])];
  const groups = variant === 'loop' ? Math.ceil(B / GAE_LOOP_WORKGROUP) : B;
  const limit = gpu.device.limits.maxComputeWorkgroupsPerDimension;
  const y = Math.ceil(groups / limit);
  rec.dispatch(pipeline, bindings, Math.ceil(groups / Math.max(y, 1)), y);
}

export interface GaeSampleOptions {
  /** λ ∈ [0, 1] for policy advantages: one for all samples or one per sample (`lengthAdaptiveLambda`). */
  lambda: number | ArrayLike<number>;
  /** λ ∈ [0, 1] for critic targets (VC-PPO decoupled GAE, e.g. 1); default `lambda`. */
  lambdaCritic?: number | ArrayLike<number>;
  /** [B] 1 = the sample ended (next value 0), 0 = truncated (next value = bootstrap); default all 1. */
  terminal?: ArrayLike<number>;
  /** [B] optimized tokens generated after this segment in the same rollout (CompactionRL); default 0. */
  tokensAfter?: ArrayLike<number>;
}

/** Packs the per-sample GAE parameters into the `lambdas` and `info` tensors' layout. */
export function gaeSampleParams(B: number, options: GaeSampleOptions): { lambdas: Float32Array; info: Uint32Array } {
  const lambda = perSample('gae', 'lambda', options.lambda, B, 0, 1);
  const lambdaCritic = perSample('gae', 'lambdaCritic', options.lambdaCritic ?? lambda, B, 0, 1);
  const lambdas = new Float32Array(2 * B);
  const info = new Uint32Array(2 * B);
  if (options.terminal) checkMask('gae', 'terminal', options.terminal, B);
  if (options.tokensAfter) checkArray('gae', 'tokensAfter', options.tokensAfter, B);
  for (let b = 0; b < B; b++) {
    lambdas[2 * b] = lambda[b];
    lambdas[2 * b + 1] = lambdaCritic[b];
    info[2 * b] = options.terminal ? options.terminal[b] : 1;
    const after = options.tokensAfter ? options.tokensAfter[b] : 0;
    if (!Number.isInteger(after) || after < 0 || after >= F32_EXACT_INTEGER) {
      throw new RangeError(`gae: tokensAfter[${b}] must be a non-negative integer below 2^24, got ${after}`);
    }
    info[2 * b + 1] = after;
  }
  return { lambdas, info };
}

/**
 * Length-adaptive λ (VAPO, arXiv:2504.05118): λ_b = 1 − 1/(α·l_b), clipped to [0, 1], where l_b is
 * the number of action tokens of sample b (CompactionRL: of the whole rollout). VAPO uses α = 0.05;
 * SAO and CompactionRL use α = 1.5. A sample with no action tokens gets λ = 0 (it has no chain).
 */
export function lengthAdaptiveLambda(lengths: ArrayLike<number>, alpha: number): Float32Array {
  checkNumber('lengthAdaptiveLambda', 'alpha', alpha, Number.MIN_VALUE, Number.MAX_VALUE);
  checkArray('lengthAdaptiveLambda', 'lengths', lengths, lengths.length);
  return Float32Array.from(lengths, (l, b) => {
    if (l < 0) throw new RangeError(`lengthAdaptiveLambda: lengths[${b}] must be non-negative, got ${l}`);
    return l === 0 ? 0 : Math.min(1, Math.max(0, 1 - 1 / (alpha * l)));
  });
}

/**
 * Token rewards [B, T] with each sample's scalar outcome on its LAST ACTION token (docs/algorithms/
 * README.md §1: not the last attended token, which in agents is usually an observation). A sample without
 * action tokens cannot carry its reward: that is an error, not a silent drop.
 */
export function placeOutcomeRewards(outcomes: ArrayLike<number>, actionMask: ArrayLike<number>, B: number, T: number): Float32Array {
  checkSizes('placeOutcomeRewards', { B, T });
  checkArray('placeOutcomeRewards', 'outcomes', outcomes, B);
  checkMask('placeOutcomeRewards', 'actionMask', actionMask, B * T);
  const rewards = new Float32Array(B * T);
  for (let b = 0; b < B; b++) {
    let t = T - 1;
    while (t >= 0 && actionMask[b * T + t] !== 1) t--;
    if (t < 0) {
      if (outcomes[b] !== 0) throw new RangeError(`placeOutcomeRewards: sample ${b} has reward ${outcomes[b]} but no action token to place it on`);
      continue;
    }
    rewards[b * T + t] = outcomes[b];
  }
  return rewards;
}

export interface GaeInputs {
  /** [B, T] token rewards. */
  rewards: Float32Array;
  /** [B, T] critic values, V[b, t] = value before token t. */
  values: Float32Array;
  /** [B, T] 1 = action token. */
  actionMask: Uint32Array;
  /** [B] value after the last token, used where `terminal` is 0. Default 0. */
  bootstrap?: Float32Array;
}

export interface GaeResult {
  /** [B, T] (γλ)^{tokensAfter}·A_t on action tokens, 0 elsewhere. */
  advantages: Float32Array;
  /** [B, T] critic targets A^{λ_critic}_t + V_t on action tokens, 0 elsewhere. */
  returns: Float32Array;
}

/**
 * Host API: token-level skip-observation GAE (docs/algorithms/ppo-gae.md §2).
 *
 *   δ_t = r_t + (observation rewards up to the next action) + γ·V_next − V_t
 *   A_t = δ_t + γλ_b·A_next,  R̂_t = A^c_t + V_t with A^c_t = δ_t + γλ_critic·A^c_next,
 *   advantages = (γλ_b)^{tokensAfter_b}·A,
 *
 * where "next" is the next ACTION token of the same sample, and past the last one V_next is 0
 * (terminal) or `bootstrap[b]` (truncated). Units: rewards and values in reward units; advantages
 * and returns too. Every array is row-major [B, T].
 */
export async function gae(
  gpu: Gpu,
  inputs: GaeInputs,
  options: { B: number; T: number; gamma: number; variant?: GaeVariant } & GaeSampleOptions,
): Promise<GaeResult> {
  const { B, T, gamma } = options;
  checkSizes('gae', { B, T });
  checkNumber('gae', 'gamma', gamma, 0, 1);
  checkArray('gae', 'rewards', inputs.rewards, B * T);
  checkArray('gae', 'values', inputs.values, B * T);
  checkMask('gae', 'actionMask', inputs.actionMask, B * T);
  const bootstrap = inputs.bootstrap ?? new Float32Array(B);
  checkArray('gae', 'bootstrap', bootstrap, B);
  const { lambdas, info } = gaeSampleParams(B, options);
  return withScope(gpu, async (s) => {
    const advantages = s.tensor(B * T, 'f32', 'advantages');
    const returns = s.tensor(B * T, 'f32', 'returns');
    const t: GaeTensors = {
      rewards: s.upload(inputs.rewards, 'rewards'),
      values: s.upload(inputs.values, 'values'),
      mask: s.upload(inputs.actionMask, 'actionMask'),
      bootstrap: s.upload(bootstrap, 'bootstrap'),
      lambdas: s.upload(lambdas, 'lambdas'),
      info: s.upload(info, 'info'),
      advantages,
      returns,
    };
    gpu.run((rec) => recordGae(rec, gpu, t, { B, T, gamma, ...(options.variant ? { variant: options.variant } : {}) }), 'gae');
    return { advantages: await s.read(advantages), returns: await s.read(returns) };
  });
}
