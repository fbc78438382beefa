// KL estimators k1, k2, k3 on the GPU with the gradient of the aggregated estimate w.r.t. ℓ.
// Math: kl.ref.ts. Two placements use this kernel (docs/algorithms/README.md §4; never mix them silently):
//   KL-in-reward: r_t −= β·k_t from `loss` (no gradient needed);
//   KL-in-loss:  + β·agg(k) — record with `coef: β, accumulate: true` after the policy loss so the
//                KL gradient adds into the same grad buffer, with the same reducer (trl#2995).
//
// Shapes: logp, refLogp, loss, grad [B, T] f32; mask [B, T] u32; scales [B] f32;
// metrics receive [Σ m·scale·k, token count].

import type { Gpu, Recorder } from '../../gpu/runtime.ts';
import type { Tensor } from '../../gpu/tensor.ts';
import { checkArray, checkMask, checkNumber, checkSizes } from '../../util/checks.ts';
import { type AggregationOptions, resolveScales } from '../aggregate/scales.ts';
import { partialCount } from '../common/reduce.ts';
import { withScope } from '../common/scope.ts';
import { recordTokenLoss, type TokenLossTensors } from '../common/token-loss.ts';
import type { TokenLossSpec } from '../common/token-loss.wgsl.ts';
import type { KlEstimator } from './kl.ref.ts';

// k3 and its gradient near Δ = 0 by series: e^{−Δ} − 1 + Δ cancels to nothing in f32 for tiny Δ
// (and 1 − e^{−Δ} loses digits); |Δ| < 0.1 keeps the truncation below 3e-7 relative.
const K3_HELPERS = /* wgsl */ `
fn k3Value(d: f32) -> f32 {
  if (abs(d) < 0.1) { return d * d * (0.5 - d * (1.0 / 6.0 - d * (1.0 / 24.0 - d / 120.0))); }
  return max(0.0, exp(-d) - 1.0 + d);
}
fn k3Grad(d: f32) -> f32 {
  if (abs(d) < 0.1) { return d * (1.0 - d * (0.5 - d * (1.0 / 6.0 - d / 24.0))); }
  return 1.0 - exp(-d);
}
`;

const BODIES: Record<KlEstimator, string> = {
  k1: 'let value = logp[i] - refLogp[i];\n      let dvalue = 1.0;',
  k2: 'let d = logp[i] - refLogp[i];\n      let value = 0.5 * d * d;\n      let dvalue = d;',
  k3: 'let d = logp[i] - refLogp[i];\n      let dc = clamp(d, -20.0, 20.0);\n      let value = k3Value(dc);\n      let dvalue = select(k3Grad(dc), 0.0, abs(d) > 20.0);',
};

export function klSpec(estimator: KlEstimator, accumulate: boolean): TokenLossSpec {
  return { inputs: ['logp', 'refLogp'], flags: [], body: BODIES[estimator], helpers: estimator === 'k3' ? K3_HELPERS : '', accumulate };
}

/** Metrics written: Σ m·scale·k, token count. */
export const KL_METRICS = 2;

export interface KlTensors extends TokenLossTensors {
  /** logp: [B, T] f32 — ℓ of the policy (the gradient is w.r.t. this). */
  logp: Tensor;
  /** refLogp: [B, T] f32 — ℓ_ref of the frozen reference. */
  refLogp: Tensor;
}

export interface KlOptions {
  B: number;
  T: number;
  estimator: KlEstimator;
  /** β: multiplies the gradient (not the per-token values or the metric); default 1. */
  coef?: number;
  /** Add into `grad` instead of overwriting it (masked positions are left as they are). */
  accumulate?: boolean;
  metricsOffset?: number;
}

function checkEstimator(estimator: KlEstimator): void {
  if (!(estimator in BODIES)) throw new RangeError(`kl: estimator must be k1, k2 or k3, got ${String(estimator)}`);
}

export function recordKl(rec: Recorder, gpu: Gpu, t: KlTensors, options: KlOptions): void {
  checkEstimator(options.estimator);
  checkNumber('kl', 'coef', options.coef ?? 1, -Number.MAX_VALUE, Number.MAX_VALUE);
  recordTokenLoss(rec, gpu, t, {
    kernel: `kl_${options.estimator}${options.accumulate ? '_acc' : ''}`,
    spec: klSpec(options.estimator, options.accumulate ?? false),
    inputs: [t.logp, t.refLogp],
    B: options.B,
    T: options.T,
    coef: options.coef ?? 1,
    hyper: [],
    ...(options.metricsOffset === undefined ? {} : { metricsOffset: options.metricsOffset }),
  });
}

/**
 * Host API: a KL estimator per token and aggregated (docs/algorithms/README.md §4), in nats.
 *   Δ = ℓ − ℓ_ref;  k1 = Δ,  k2 = ½Δ²,  k3 = e^{−Δ} − 1 + Δ (Δ clamped to ±20);
 *   kl = Σ m·scale·k (reducer from `mode`, default token-mean);  grad = coef · d kl / dℓ.
 */
export async function kl(
  gpu: Gpu,
  inputs: { logp: Float32Array; refLogp: Float32Array; mask: Uint32Array; scales?: Float32Array },
  options: Omit<KlOptions, 'accumulate' | 'metricsOffset'> & Partial<AggregationOptions>,
): Promise<{ kl: number; perToken: Float32Array; grad: Float32Array }> {
  const { B, T } = options;
  checkSizes('kl', { B, T });
  checkEstimator(options.estimator);
  checkArray('kl', 'logp', inputs.logp, B * T);
  checkArray('kl', 'refLogp', inputs.refLogp, B * T);
  checkMask('kl', 'mask', inputs.mask, B * T);
  const scales = resolveScales('kl', inputs.mask, B, T, inputs.scales, options);
  return withScope(gpu, async (s) => {
    const loss = s.tensor(B * T, 'f32', 'kl');
    const grad = s.tensor(B * T, 'f32', 'grad');
    const metrics = s.tensor(KL_METRICS, 'f32', 'metrics');
    const t: KlTensors = {
      logp: s.upload(inputs.logp, 'logp'),
      refLogp: s.upload(inputs.refLogp, 'refLogp'),
      mask: s.upload(inputs.mask, 'mask'),
      scales: s.upload(scales, 'scales'),
      loss,
      grad,
      partials: s.tensor(KL_METRICS * partialCount(gpu, B * T), 'f32', 'partials'),
      metrics,
    };
    gpu.run((rec) => recordKl(rec, gpu, t, options), 'kl');
    return { kl: (await s.read(metrics))[0], perToken: await s.read(loss), grad: await s.read(grad) };
  });
}
