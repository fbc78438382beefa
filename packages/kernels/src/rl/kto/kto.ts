// KTO on the GPU (TRL's formula): launcher, host API and the mismatched-pair helper.
// Math: kto.ref.ts; dispatches: kto.wgsl.ts.
//
// Shapes: logp, refLogp, klLogp, klRefLogp, grad [B, T] f32; mask, klMask [B, T] u32;
// desirable [B] u32; seq [B, 2] f32; perSample [B, 3] f32; stats [2] f32 (loss, z0).

import type { Gpu, Recorder } from '../../gpu/runtime.ts';
import type { Tensor } from '../../gpu/tensor.ts';
import { f32Bits } from '../../gpu/wgsl.ts';
import { checkArray, checkMask, checkNumber, checkSizes, checkTensor } from '../../util/checks.ts';
import { withScope } from '../common/scope.ts';
import type { KtoParams } from './kto.ref.ts';
import { KTO_WORKGROUP, ktoGradWgsl, ktoLossWgsl, ktoSumsWgsl } from './kto.wgsl.ts';

export interface KtoTensors {
  /** logp: [B, T] f32 — ℓ of the policy on the matched completion y_b | x_b. */
  logp: Tensor;
  /** refLogp: [B, T] f32 — ℓ_ref on the matched completion. */
  refLogp: Tensor;
  /** mask: [B, T] u32 — completion tokens of the matched pair. */
  mask: Tensor;
  /** klLogp: [B, T] f32 — ℓ of the policy on the mismatched pair (row b: y_{pair[b]} | x_b). */
  klLogp: Tensor;
  /** klRefLogp: [B, T] f32 — ℓ_ref on the mismatched pair. */
  klRefLogp: Tensor;
  /** klMask: [B, T] u32 — completion tokens of the mismatched pair. */
  klMask: Tensor;
  /** desirable: [B] u32 — 1 desirable, 0 undesirable. */
  desirable: Tensor;
  /** seq: [B, 2] f32 scratch — (r_b, kl_b). */
  seq: Tensor;
  /** perSample: [B, 3] f32 output — (r_b, L_b, dloss/dr_b). */
  perSample: Tensor;
  /** stats: [2] f32 output — (loss, z0). */
  stats: Tensor;
  /** grad: [B, T] f32 output — dloss/dℓ on matched tokens. */
  grad: Tensor;
}

export function checkKtoParams(kernel: string, params: KtoParams): void {
  checkNumber(kernel, 'beta', params.beta, 0, 1e6);
  checkNumber(kernel, 'lambdaD', params.lambdaD, 0, 1e6);
  checkNumber(kernel, 'lambdaU', params.lambdaU, 0, 1e6);
}

function grid(gpu: Gpu, groups: number): [number, number] {
  const limit = gpu.device.limits.maxComputeWorkgroupsPerDimension;
  const y = Math.max(1, Math.ceil(groups / limit));
  return [Math.ceil(groups / y), y];
}

export function recordKto(rec: Recorder, gpu: Gpu, t: KtoTensors, options: KtoParams & { B: number; T: number }): void {
  const { B, T } = options;
  checkSizes('kto', { B, T });
  checkKtoParams('kto', options);
  for (const [name, tensor] of [
    ['logp', t.logp],
    ['refLogp', t.refLogp],
    ['klLogp', t.klLogp],
    ['klRefLogp', t.klRefLogp],
    ['grad', t.grad],
  ] as const) {
    checkTensor('kto', name, tensor, B * T, 'f32');
  }
  checkTensor('kto', 'mask', t.mask, B * T, 'u32');
  checkTensor('kto', 'klMask', t.klMask, B * T, 'u32');
  checkTensor('kto', 'desirable', t.desirable, B, 'u32');
  checkTensor('kto', 'seq', t.seq, 2 * B, 'f32');
  checkTensor('kto', 'perSample', t.perSample, 3 * B, 'f32');
  checkTensor('kto', 'stats', t.stats, 2, 'f32');
  const sums = gpu.pipeline(ktoSumsWgsl(), 'main', 'rl_kto_sums');
  rec.dispatch(sums, [t.logp, t.refLogp, t.mask, t.klLogp, t.klRefLogp, t.klMask, t.seq, gpu.uniform([B, T])], ...grid(gpu, B));
  const loss = gpu.pipeline(ktoLossWgsl(), 'main', 'rl_kto_loss');
  rec.dispatch(
    loss,
    [t.seq, t.desirable, t.perSample, t.stats, gpu.uniform([B, f32Bits(options.beta), f32Bits(options.lambdaD), f32Bits(options.lambdaU)])],
    1,
  );
  const grad = gpu.pipeline(ktoGradWgsl(), 'main', 'rl_kto_grad');
  rec.dispatch(grad, [t.mask, t.perSample, t.grad, gpu.uniform([B * T, Math.max(T, 1)])], ...grid(gpu, Math.ceil((B * T) / KTO_WORKGROUP)));
}

/**
 * TRL's mismatched pairs for the KL reference point: row b is scored as (x_b, y_{(b+1) mod B}). The
 * +1 rotation (TRL PR #1970) never pairs a row with itself, unlike the old reversal, which did so for
 * the middle row of an odd batch (trl#1911). A batch of one has no mismatched pair (trl#2554).
 */
export function ktoMismatchedPairs(B: number): Uint32Array {
  checkSizes('ktoMismatchedPairs', { B });
  if (B < 2) throw new RangeError(`ktoMismatchedPairs: B must be at least 2 to form mismatched pairs, got ${B}`);
  return Uint32Array.from({ length: B }, (_, b) => (b + 1) % B);
}

export interface KtoInputs {
  /** [B, T] ℓ of the policy on each matched completion. */
  logp: Float32Array;
  /** [B, T] ℓ_ref on each matched completion. */
  refLogp: Float32Array;
  /** [B, T] 1 on completion tokens. */
  mask: Uint32Array;
  /** [B, T] ℓ of the policy on the mismatched pair of row b (see `ktoMismatchedPairs`). */
  klLogp: Float32Array;
  /** [B, T] ℓ_ref on the mismatched pair of row b. */
  klRefLogp: Float32Array;
  /** [B, T] 1 on the mismatched completion's tokens. */
  klMask: Uint32Array;
  /** [B] 1 desirable, 0 undesirable. */
  desirable: Uint32Array;
}

export interface KtoResult {
  /** mean_b L_b (dimensionless, in [0, max λ]). */
  loss: number;
  /** The reference point z0 = max(0, mean kl_b), nats; detached. */
  z0: number;
  /** [B] implicit rewards r_b = Σ_t m(ℓ − ℓ_ref), nats (TRL logs β·r_b). */
  rewards: Float32Array;
  /** [B] per-sample losses L_b. */
  perSample: Float32Array;
  /** [B, T] dloss/dℓ on matched tokens; the mismatched pass gets no gradient. */
  grad: Float32Array;
}

/**
 * Host API: KTO (docs/algorithms/kto.md §1, TRL's `_compute_loss`):
 *   r_b = Σ_t m(ℓ − ℓ_ref),  z0 = sg(max(0, mean_b Σ_t m'(ℓ' − ℓ'_ref))),
 *   L_b = λ_D(1 − σ(β(r_b − z0))) desirable | λ_U(1 − σ(β(z0 − r_b))) undesirable,  loss = mean_b L_b.
 * TRL defaults: β = 0.1, λ_D = λ_U = 1.
 */
export async function kto(gpu: Gpu, inputs: KtoInputs, options: KtoParams & { B: number; T: number }): Promise<KtoResult> {
  const { B, T } = options;
  checkSizes('kto', { B, T });
  checkKtoParams('kto', options);
  for (const name of ['logp', 'refLogp', 'klLogp', 'klRefLogp'] as const) checkArray('kto', name, inputs[name], B * T);
  checkMask('kto', 'mask', inputs.mask, B * T);
  checkMask('kto', 'klMask', inputs.klMask, B * T);
  checkMask('kto', 'desirable', inputs.desirable, B);
  return withScope(gpu, async (s) => {
    const perSample = s.tensor(3 * B, 'f32', 'perSample');
    const stats = s.tensor(2, 'f32', 'stats');
    const grad = s.tensor(B * T, 'f32', 'grad');
    const t: KtoTensors = {
      logp: s.upload(inputs.logp, 'logp'),
      refLogp: s.upload(inputs.refLogp, 'refLogp'),
      mask: s.upload(inputs.mask, 'mask'),
      klLogp: s.upload(inputs.klLogp, 'klLogp'),
      klRefLogp: s.upload(inputs.klRefLogp, 'klRefLogp'),
      klMask: s.upload(inputs.klMask, 'klMask'),
      desirable: s.upload(inputs.desirable, 'desirable'),
      seq: s.tensor(2 * B, 'f32', 'seq'),
      perSample,
      stats,
      grad,
    };
    gpu.run((rec) => recordKto(rec, gpu, t, options), 'kto');
    const st = await s.read(stats);
    const ps = await s.read(perSample);
    return {
      loss: st[0],
      z0: st[1],
      rewards: Float32Array.from({ length: B }, (_, b) => ps[3 * b]),
      perSample: Float32Array.from({ length: B }, (_, b) => ps[3 * b + 1]),
      grad: await s.read(grad),
    };
  });
}
