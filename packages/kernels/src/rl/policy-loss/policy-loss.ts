// Policy losses on the GPU — PPO clipped surrogate (asymmetric ε, optional dual clip) and SAO's DIS
// band mask — with the gradient of the aggregated loss w.r.t. token log-probs and the clip/mask
// fractions. Math: policy-loss.ref.ts.
//
// Shapes: logp, oldLogp, advantages, loss, grad [B, T] f32; mask [B, T] u32; scales [B] f32;
// metrics receive [loss, low count, high count, (dual count,) token count].

import type { Gpu, Recorder } from '../../gpu/runtime.ts';
import type { Tensor } from '../../gpu/tensor.ts';
import { checkArray, checkMask, checkNumber, checkSizes } from '../../util/checks.ts';
import { type AggregationOptions, resolveScales } from '../aggregate/scales.ts';
import { partialCount } from '../common/reduce.ts';
import { withScope } from '../common/scope.ts';
import { recordTokenLoss, type TokenLossTensors } from '../common/token-loss.ts';
import { tokenLossTerms } from '../common/token-loss.wgsl.ts';
import type { PolicyLossParams } from './policy-loss.ref.ts';
import { policyLossSpec } from './policy-loss.wgsl.ts';

export interface PolicyLossTensors extends TokenLossTensors {
  /** logp: [B, T] f32 — ℓ = log π_θ(y_t) of the current policy (the input the gradient is taken for). */
  logp: Tensor;
  /** oldLogp: [B, T] f32 — PPO: ℓ_old of the snapshot; DIS: ℓ_roll recorded by the sampler. */
  oldLogp: Tensor;
  /** advantages: [B, T] f32. */
  advantages: Tensor;
}

/** How many metrics the kernel writes: loss, low, high, (dual,) tokens. */
export function policyLossMetricCount(kind: PolicyLossParams['kind']): number {
  return tokenLossTerms(policyLossSpec(kind));
}

export function checkPolicyLossParams(params: PolicyLossParams): void {
  if (params.kind !== 'ppo' && params.kind !== 'dis') throw new RangeError(`policyLoss: kind must be 'ppo' or 'dis', got ${String(params.kind)}`);
  checkNumber('policyLoss', 'epsLow', params.epsLow, 0, 1);
  checkNumber('policyLoss', 'epsHigh', params.epsHigh, 0, 1e6);
  const c = params.dualClip ?? 0;
  if (params.kind === 'dis' && c !== 0) throw new RangeError('policyLoss: dualClip applies to ppo only');
  if (c !== 0 && !(Number.isFinite(c) && c > 1)) throw new RangeError(`policyLoss: dualClip must be a finite number > 1 (or 0 for off), got ${c}`);
}

/** Records the policy loss: per-token loss, gradient of the aggregated loss, metrics at `metricsOffset`. */
export function recordPolicyLoss(
  rec: Recorder,
  gpu: Gpu,
  t: PolicyLossTensors,
  options: PolicyLossParams & { B: number; T: number; metricsOffset?: number },
): void {
  checkPolicyLossParams(options);
  recordTokenLoss(rec, gpu, t, {
    kernel: `policy_loss_${options.kind}`,
    spec: policyLossSpec(options.kind),
    inputs: [t.logp, t.oldLogp, t.advantages],
    B: options.B,
    T: options.T,
    hyper: [options.epsLow, options.epsHigh, options.dualClip ?? 0],
    ...(options.metricsOffset === undefined ? {} : { metricsOffset: options.metricsOffset }),
  });
}

export interface PolicyLossInputs {
  /** [B, T] log π_θ of the sampled tokens. */
  logp: Float32Array;
  /** [B, T] PPO: log π_old; DIS: the rollout engine's log-probs. */
  oldLogp: Float32Array;
  /** [B, T] advantages. */
  advantages: Float32Array;
  /** [B, T] 1 = action token. */
  mask: Uint32Array;
  /** [B] optional batch-wide aggregation scales (a minibatch passes its rows' scales). */
  scales?: Float32Array;
}

export interface PolicyLossResult {
  /** The aggregated loss Σ m·scale·pg (to minimize), in advantage units. */
  loss: number;
  /** [B, T] per-token pg, 0 off the mask. */
  perToken: Float32Array;
  /** [B, T] d loss / d logp. */
  grad: Float32Array;
  /** Fraction of action tokens clipped (PPO, A < 0) or masked below the band (DIS). */
  lowFraction: number;
  /** Fraction of action tokens clipped (PPO, A > 0) or masked above the band (DIS). */
  highFraction: number;
  /** Fraction of action tokens where the dual clip bound (PPO; 0 for DIS). */
  dualFraction: number;
}

/**
 * Host API: PPO clipped surrogate or SAO's DIS loss with its gradient (docs/algorithms/ppo-gae.md §4, docs/algorithms/sao-dis.md §1).
 *
 *   PPO: ρ = e^{ℓ−ℓ_old}, pg = max(−Aρ, −A·clip(ρ, 1−ε_low, 1+ε_high)), then min(pg, −cA) for A < 0
 *   DIS: ρ = e^{ℓ−ℓ_roll}, pg = −sg(ρ·[1−ε_low < ρ < 1+ε_high])·A·ℓ
 *   loss = Σ_b Σ_t m·scale_b·pg (reducer from `mode`, default token-mean), grad = d loss/dℓ.
 *
 * SAO's settings: ε_low = 0.3, ε_high = 5 (math) or 0.8/3 (coding); DAPO's clip-higher 0.2/0.28.
 */
export async function policyLoss(
  gpu: Gpu,
  inputs: PolicyLossInputs,
  options: PolicyLossParams & { B: number; T: number } & Partial<AggregationOptions>,
): Promise<PolicyLossResult> {
  const { B, T } = options;
  checkSizes('policyLoss', { B, T });
  checkPolicyLossParams(options);
  for (const name of ['logp', 'oldLogp', 'advantages'] as const) checkArray('policyLoss', name, inputs[name], B * T);
  checkMask('policyLoss', 'mask', inputs.mask, B * T);
  const scales = resolveScales('policyLoss', inputs.mask, B, T, inputs.scales, options);
  const K = policyLossMetricCount(options.kind);
  return withScope(gpu, async (s) => {
    const loss = s.tensor(B * T, 'f32', 'loss');
    const grad = s.tensor(B * T, 'f32', 'grad');
    const metrics = s.tensor(K, 'f32', 'metrics');
    const t: PolicyLossTensors = {
      logp: s.upload(inputs.logp, 'logp'),
      oldLogp: s.upload(inputs.oldLogp, 'oldLogp'),
      advantages: s.upload(inputs.advantages, 'advantages'),
      mask: s.upload(inputs.mask, 'mask'),
      scales: s.upload(scales, 'scales'),
      loss,
      grad,
      partials: s.tensor(K * partialCount(gpu, B * T), 'f32', 'partials'),
      metrics,
    };
    gpu.run((rec) => recordPolicyLoss(rec, gpu, t, options), 'policyLoss');
    const m = await s.read(metrics);
    const n = m[K - 1];
    const frac = (x: number) => (n > 0 ? x / n : 0);
    return {
      loss: m[0],
      perToken: await s.read(loss),
      grad: await s.read(grad),
      lowFraction: frac(m[1]),
      highFraction: frac(m[2]),
      dualFraction: options.kind === 'ppo' ? frac(m[3]) : 0,
    };
  });
}
