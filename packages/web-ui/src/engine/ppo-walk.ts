// The PPO clipping walkthrough's numbers, from the policy-loss kernel (docs/algorithms/ppo-gae.md §4):
// three dispatches of the same kernel on the worker's device.
//   1. the six tokens with the learner's ε_low, ε_high, dual clip c and advantage sign: per-token
//      loss pg_t, gradient ∂pg_t/∂ℓ_t (aggregation scale 1, so the gradient is per token, not divided
//      by the token count as token-mean training does) and the kernel's clip fractions;
//   2. the same ℓ and ℓ_old with A = −1, ε_low = 1, ε_high = 10⁶ and no dual clip: there the clip
//      range never binds and pg = ρ, so the ratio on screen is the kernel's, log-ratio clamp included;
//   3. the surrogate curve: ρ over [0.25, 3.75] as ℓ = ln ρ, ℓ_old = 0, A = sign, with the learner's ε and c.
// The branch of each token is read off the kernel's answer (a zero gradient with A ≠ 0 means a clip
// term is active; the loss equal to −c·A means the dual clip), not decided by the page; clip(ρ) is the
// one clamp computed here, on the kernel's ρ. Without WebGPU the float64 reference fills in.

import { type Gpu, type PolicyLossParams, policyLoss, policyLossRef } from '@horizon/kernels';
import type { PpoAnswer, PpoBranch, PpoRequest } from './walk-api.ts';
import { PPO_CURVE_MAX, PPO_CURVE_MIN, PPO_CURVE_POINTS, PPO_TOKENS } from './walk-data.ts';

export function checkPpoRequest(r: PpoRequest): void {
  if (!(r.epsLow >= 0 && r.epsLow < 1)) throw new RangeError(`ppo walkthrough: epsLow must be in [0, 1), got ${r.epsLow}`);
  if (!(r.epsHigh >= 0 && r.epsHigh <= 10)) throw new RangeError(`ppo walkthrough: epsHigh must be in [0, 10], got ${r.epsHigh}`);
  if (!(r.dualClip === 0 || (r.dualClip > 1 && r.dualClip <= 100)))
    throw new RangeError(`ppo walkthrough: dualClip must be 0 (off) or in (1, 100], got ${r.dualClip}`);
  if (r.sign !== 1 && r.sign !== -1) throw new RangeError(`ppo walkthrough: sign must be 1 or −1, got ${r.sign}`);
}

type Loss = { perToken: ArrayLike<number>; grad: ArrayLike<number>; lowFraction: number; highFraction: number; dualFraction: number };

async function run(gpu: Gpu | null, logp: Float32Array, oldLogp: Float32Array, advantages: Float32Array, params: PolicyLossParams): Promise<Loss> {
  const T = logp.length;
  const mask = new Uint32Array(T).fill(1);
  const scales = Float32Array.of(1);
  return gpu
    ? policyLoss(gpu, { logp, oldLogp, advantages, mask, scales }, { ...params, B: 1, T })
    : policyLossRef({ logp, oldLogp, advantages, mask, scales }, { ...params, B: 1, T });
}

/** The branch the kernel's answer shows: its gradient is zero exactly when a clip term (or the dual clip) is the active one. */
export function branchOf(loss: number, grad: number, advantage: number, dualClip: number): PpoBranch {
  if (advantage === 0) return 'no-signal';
  if (grad !== 0) return 'unclipped';
  if (dualClip > 0 && advantage < 0 && Math.abs(loss + dualClip * advantage) <= 1e-6 * Math.max(1, Math.abs(loss))) return 'dual-clip';
  return advantage > 0 ? 'clipped-high' : 'clipped-low';
}

/** The curve's ratios: evenly spaced over [PPO_CURVE_MIN, PPO_CURVE_MAX]. */
export function curveRatios(): number[] {
  return Array.from({ length: PPO_CURVE_POINTS }, (_, k) => PPO_CURVE_MIN + ((PPO_CURVE_MAX - PPO_CURVE_MIN) * k) / (PPO_CURVE_POINTS - 1));
}

export async function computePpoWalk(gpu: Gpu | null, request: PpoRequest, deviceLine: string): Promise<PpoAnswer> {
  checkPpoRequest(request);
  const started = performance.now();
  const logp = Float32Array.from(PPO_TOKENS, (t) => t.logp);
  const oldLogp = Float32Array.from(PPO_TOKENS, (t) => t.oldLogp);
  const advantages = Float32Array.from(PPO_TOKENS, (t) => request.sign * t.magnitude);
  const params: PolicyLossParams = { kind: 'ppo', epsLow: request.epsLow, epsHigh: request.epsHigh, dualClip: request.dualClip };
  const tokens = await run(gpu, logp, oldLogp, advantages, params);
  const probe = await run(gpu, logp, oldLogp, new Float32Array(logp.length).fill(-1), { kind: 'ppo', epsLow: 1, epsHigh: 1e6, dualClip: 0 });
  const ratios = curveRatios();
  const curveLogp = Float32Array.from(ratios, Math.log);
  const curve = await run(gpu, curveLogp, new Float32Array(ratios.length), new Float32Array(ratios.length).fill(request.sign), params);
  const ratio = Array.from(probe.perToken);
  const loss = Array.from(tokens.perToken);
  const grad = Array.from(tokens.grad);
  const adv = Array.from(advantages);
  return {
    request: { ...request },
    oldLogp: Array.from(oldLogp),
    logp: Array.from(logp),
    advantages: adv,
    ratio,
    clippedRatio: ratio.map((r) => Math.min(1 + request.epsHigh, Math.max(1 - request.epsLow, r))),
    loss,
    grad,
    branch: loss.map((l, t) => branchOf(l, grad[t], adv[t], request.dualClip)),
    lowFraction: tokens.lowFraction,
    highFraction: tokens.highFraction,
    dualFraction: tokens.dualFraction,
    curve: { ratio: ratios, objective: Array.from(curve.perToken, (pg) => -pg) },
    computedOn: gpu ? 'gpu' : 'cpu',
    deviceLine,
    millis: performance.now() - started,
  };
}
