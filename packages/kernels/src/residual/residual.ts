// Launchers and host API for residual adds (residual.wgsl.ts):  out = a + b;  a += b

import { gridFor } from '../gpu/grid.ts';
import type { Gpu, Recorder } from '../gpu/runtime.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { checkLength, checkTensor } from '../util/checks.ts';
import { residualAccumulateWgsl, residualAddWgsl } from './residual.wgsl.ts';

/** Records out = a + b; a, b, out: [n] f32. */
export function recordResidualAdd(rec: Recorder, gpu: Gpu, t: { a: Tensor; b: Tensor; out: Tensor }): void {
  const n = t.a.size;
  checkTensor('residualAdd', 'a', t.a, n);
  checkTensor('residualAdd', 'b', t.b, n);
  checkTensor('residualAdd', 'out', t.out, n);
  const vec4 = n % 4 === 0 && n > 0;
  const count = vec4 ? n / 4 : n;
  const pipeline = gpu.pipeline(residualAddWgsl(vec4), 'main', vec4 ? 'residual_add_vec4' : 'residual_add');
  rec.dispatch(pipeline, [t.a, t.b, t.out, gpu.uniform([count])], ...gridFor(gpu, count, 64));
}

/** Records a += b in place (a gradient stream receiving a branch's gradient); a, b: [n] f32. */
export function recordResidualAccumulate(rec: Recorder, gpu: Gpu, t: { a: Tensor; b: Tensor }): void {
  const n = t.a.size;
  checkTensor('residualAccumulate', 'a', t.a, n);
  checkTensor('residualAccumulate', 'b', t.b, n);
  const vec4 = n % 4 === 0 && n > 0;
  const count = vec4 ? n / 4 : n;
  const pipeline = gpu.pipeline(residualAccumulateWgsl(vec4), 'main', vec4 ? 'residual_accumulate_vec4' : 'residual_accumulate');
  rec.dispatch(pipeline, [t.a, t.b, gpu.uniform([count])], ...gridFor(gpu, count, 64));
}

/** Host API: a + b. */
export async function residualAdd(gpu: Gpu, a: Float32Array, b: Float32Array): Promise<Float32Array> {
  checkLength('residualAdd', 'b', b, a.length);
  const A = gpu.upload(a, [a.length], 'a');
  const B = gpu.upload(b, [b.length], 'b');
  const Out = gpu.tensor([a.length], 'f32', 'out');
  try {
    gpu.run((rec) => recordResidualAdd(rec, gpu, { a: A, b: B, out: Out }), 'residual_add');
    return await gpu.read(Out);
  } finally {
    for (const t of [A, B, Out]) gpu.destroy(t);
  }
}

/** Host API: a + b computed in place in a's GPU buffer (the result is the new a). */
export async function residualAccumulate(gpu: Gpu, a: Float32Array, b: Float32Array): Promise<Float32Array> {
  checkLength('residualAccumulate', 'b', b, a.length);
  const A = gpu.tensor([a.length], 'f32', 'a');
  gpu.write(A, a);
  const B = gpu.upload(b, [b.length], 'b');
  try {
    gpu.run((rec) => recordResidualAccumulate(rec, gpu, { a: A, b: B }), 'residual_accumulate');
    return await gpu.read(A);
  } finally {
    gpu.destroy(A);
    gpu.destroy(B);
  }
}
