// Distillation advantage modifiers on the GPU: on-policy distillation's per-token reverse KL (slime
// form) and OPID's skill advantage Δ. Math: distill.ref.ts; kernel: distill.wgsl.ts.
//
// Shapes: advantages, x, y, delta, out [B, T] f32; mask [B, T] u32; q [B] f32.

import type { Gpu, Recorder } from '../../gpu/runtime.ts';
import type { Tensor } from '../../gpu/tensor.ts';
import { f32Bits } from '../../gpu/wgsl.ts';
import { checkArray, checkMask, checkNumber, checkSizes, checkTensor } from '../../util/checks.ts';
import { withScope } from '../common/scope.ts';
import { DISTILL_WORKGROUP, distillWgsl } from './distill.wgsl.ts';

export interface DistillTensors {
  /** advantages: [B, T] f32 — the base estimator's advantages (zeros for pure distillation). */
  advantages: Tensor;
  /** x: [B, T] f32 — OPD: student ℓ^S; OPID: ℓ under the skill-augmented context. */
  x: Tensor;
  /** y: [B, T] f32 — OPD: teacher ℓ^T; OPID: ℓ under the original context. */
  y: Tensor;
  /** mask: [B, T] u32 — action tokens. */
  mask: Tensor;
  /** q: [B] f32 — per-sample weight (OPID: 0 where the analyzer gave no skill; OPD: 1). */
  q: Tensor;
  /** delta: [B, T] f32 output — m·q·(x − y). */
  delta: Tensor;
  /** out: [B, T] f32 output — m·(advantages + coef·delta). */
  out: Tensor;
}

/** Records delta = m·q·(x − y) and out = m·(advantages + coef·delta). */
export function recordDistill(rec: Recorder, gpu: Gpu, t: DistillTensors, options: { B: number; T: number; coef: number }): void {
  const { B, T } = options;
  checkSizes('distill', { B, T });
  checkNumber('distill', 'coef', options.coef, -1e6, 1e6);
  for (const [name, tensor] of [
    ['advantages', t.advantages],
    ['x', t.x],
    ['y', t.y],
    ['delta', t.delta],
    ['out', t.out],
  ] as const) {
    checkTensor('distill', name, tensor, B * T, 'f32');
  }
  checkTensor('distill', 'mask', t.mask, B * T, 'u32');
  checkTensor('distill', 'q', t.q, B, 'f32');
  const groups = Math.ceil((B * T) / DISTILL_WORKGROUP);
  const limit = gpu.device.limits.maxComputeWorkgroupsPerDimension;
  const y = Math.max(1, Math.ceil(groups / limit));
  const bindings = [t.advantages, t.x, t.y, t.mask, t.q, t.delta, t.out, gpu.uniform([B * T, Math.max(T, 1), f32Bits(options.coef)])];
  rec.dispatch(gpu.pipeline(distillWgsl(), 'main', 'rl_distill'), bindings, Math.ceil(groups / y), y);
}

async function runDistill(
  gpu: Gpu,
  kernel: string,
  arrays: { advantages: Float32Array; x: Float32Array; y: Float32Array; mask: Uint32Array; q: Float32Array },
  options: { B: number; T: number; coef: number },
): Promise<{ delta: Float32Array; out: Float32Array }> {
  const { B, T } = options;
  return withScope(gpu, async (s) => {
    const delta = s.tensor(B * T, 'f32', 'delta');
    const out = s.tensor(B * T, 'f32', 'advantages');
    const t: DistillTensors = {
      advantages: s.upload(arrays.advantages, 'advantages'),
      x: s.upload(arrays.x, 'x'),
      y: s.upload(arrays.y, 'y'),
      mask: s.upload(arrays.mask, 'mask'),
      q: s.upload(arrays.q, 'q'),
      delta,
      out,
    };
    gpu.run((rec) => recordDistill(rec, gpu, t, options), kernel);
    return { delta: await s.read(delta), out: await s.read(out) };
  });
}

/**
 * Host API: on-policy distillation's per-token advantage (docs/algorithms/distillation.md §1, slime form):
 *   reverseKl_t = ℓ^S_t − ℓ^T_t (nats),  Â_t = m_t·(A_t − coef·reverseKl_t),  no discounting.
 * `advantages` defaults to 0 (pure distillation). slime's `--opd-kl-coef` default is 1.
 */
export async function opdAdvantages(
  gpu: Gpu,
  inputs: { studentLogp: Float32Array; teacherLogp: Float32Array; mask: Uint32Array; advantages?: Float32Array },
  options: { B: number; T: number; coef?: number },
): Promise<{ advantages: Float32Array; reverseKl: Float32Array }> {
  const { B, T } = options;
  const coef = options.coef ?? 1;
  checkSizes('opdAdvantages', { B, T });
  checkNumber('opdAdvantages', 'coef', coef, 0, 1e6);
  checkArray('opdAdvantages', 'studentLogp', inputs.studentLogp, B * T);
  checkArray('opdAdvantages', 'teacherLogp', inputs.teacherLogp, B * T);
  checkMask('opdAdvantages', 'mask', inputs.mask, B * T);
  const advantages = inputs.advantages ?? new Float32Array(B * T);
  checkArray('opdAdvantages', 'advantages', advantages, B * T);
  const r = await runDistill(
    gpu,
    'opd',
    { advantages, x: inputs.studentLogp, y: inputs.teacherLogp, mask: inputs.mask, q: new Float32Array(B).fill(1) },
    { B, T, coef: -coef },
  );
  return { advantages: r.out, reverseKl: r.delta };
}

/**
 * Host API: OPID's skill advantage (docs/algorithms/distillation.md §2), both log-probs from π_old on the same response:
 *   Δ_t = m_t·q_b·(ℓ(y_t | h̃) − ℓ(y_t | h)) (nats),  Â_t = m_t·(A^ep_t + weight·Δ_t).
 * q_b (`skillWeight`, default 1) is 0 where the analyzer produced no skill. The authors use weight 1e-3.
 */
export async function opidAdvantages(
  gpu: Gpu,
  inputs: { episodeAdvantages: Float32Array; augmentedLogp: Float32Array; originalLogp: Float32Array; mask: Uint32Array; skillWeight?: Float32Array },
  options: { B: number; T: number; weight: number },
): Promise<{ advantages: Float32Array; delta: Float32Array }> {
  const { B, T } = options;
  checkSizes('opidAdvantages', { B, T });
  checkNumber('opidAdvantages', 'weight', options.weight, -1e6, 1e6);
  for (const name of ['episodeAdvantages', 'augmentedLogp', 'originalLogp'] as const) checkArray('opidAdvantages', name, inputs[name], B * T);
  checkMask('opidAdvantages', 'mask', inputs.mask, B * T);
  const q = inputs.skillWeight ?? new Float32Array(B).fill(1);
  checkArray('opidAdvantages', 'skillWeight', q, B);
  const r = await runDistill(
    gpu,
    'opid',
    { advantages: inputs.episodeAdvantages, x: inputs.augmentedLogp, y: inputs.originalLogp, mask: inputs.mask, q },
    { B, T, coef: options.weight },
  );
  return { advantages: r.out, delta: r.delta };
}
