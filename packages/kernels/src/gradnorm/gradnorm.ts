// Launcher and host API for the global grad-norm and clip scale (gradnorm.wgsl.ts).

import { FLAG_BLOCK } from '../adamw/flags.ts';
import type { Gpu, Recorder } from '../gpu/runtime.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { f32Bits } from '../gpu/wgsl.ts';
import { checkLength, checkTensor } from '../util/checks.ts';
import { GRAD_NORM_FINISH_WGSL, GRAD_NORM_PARTIALS, gradNormPartialsWgsl } from './gradnorm.wgsl.ts';

/** The largest finite f32: "no clipping" without putting Inf in a uniform (WGSL may assume finite). */
const F32_MAX = 3.4028234663852886e38;

export interface GradNormTensors {
  /** grads: [n] f32 */
  grads: Tensor;
  /** partials: [GRAD_NORM_PARTIALS] f32, scratch */
  partials: Tensor;
  /** out: [2] f32 — norm, clipScale */
  out: Tensor;
  /** flags: [⌈n / 64⌉] u32 (optional); frozen blocks are left out of the norm */
  flags?: Tensor;
}

function checkMaxNorm(maxNorm: number): void {
  if (!(maxNorm > 0) || Number.isNaN(maxNorm)) throw new RangeError(`gradNorm: maxNorm must be positive (Infinity turns clipping off), got ${maxNorm}`);
}

/** Records out = [‖grads‖₂, min(1, maxNorm / (‖grads‖₂ + 1e-6))] (two dispatches). */
export function recordGradNorm(rec: Recorder, gpu: Gpu, t: GradNormTensors, options: { maxNorm: number }): void {
  checkMaxNorm(options.maxNorm);
  const n = t.grads.size;
  checkTensor('gradNorm', 'grads', t.grads, n);
  checkTensor('gradNorm', 'partials', t.partials, GRAD_NORM_PARTIALS);
  checkTensor('gradNorm', 'out', t.out, 2);
  if (t.flags) checkTensor('gradNorm', 'flags', t.flags, Math.ceil(n / FLAG_BLOCK), 'u32');
  const vec4 = n % 4 === 0 && n > 0;
  const partials = gpu.pipeline(gradNormPartialsWgsl(t.flags !== undefined, vec4), 'main', vec4 ? 'grad_norm_partials_vec4' : 'grad_norm_partials');
  const bindings = [t.grads, t.partials, gpu.uniform([vec4 ? n / 4 : n]), ...(t.flags ? [t.flags] : [])];
  rec.dispatch(partials, bindings, GRAD_NORM_PARTIALS / 64);
  const finish = gpu.pipeline(GRAD_NORM_FINISH_WGSL, 'main', 'grad_norm_finish');
  rec.dispatch(finish, [t.partials, t.out, gpu.uniform([f32Bits(Math.min(options.maxNorm, F32_MAX))])], 1);
}

/** Host API: the global L2 norm of `grads` and the clip scale for `maxNorm`. */
export async function gradNorm(gpu: Gpu, grads: Float32Array, options: { maxNorm: number; flags?: Uint32Array }): Promise<{ norm: number; clipScale: number }> {
  checkMaxNorm(options.maxNorm);
  if (options.flags) checkLength('gradNorm', 'flags', options.flags, Math.ceil(grads.length / FLAG_BLOCK));
  const t = {
    grads: gpu.upload(grads, [grads.length], 'grads'),
    partials: gpu.tensor([GRAD_NORM_PARTIALS], 'f32', 'partials'),
    out: gpu.tensor([2], 'f32', 'grad norm'),
    ...(options.flags ? { flags: gpu.upload(options.flags, [options.flags.length], 'flags') } : {}),
  };
  try {
    gpu.run((rec) => recordGradNorm(rec, gpu, t, options), 'grad_norm');
    const [norm, clipScale] = await gpu.read(t.out);
    return { norm, clipScale };
  } finally {
    for (const tensor of Object.values(t)) gpu.destroy(tensor);
  }
}
