// Launchers and host API for GELU (math in gelu.wgsl.ts).  out[n] = gelu(x[n]);  dinp[n] = dout[n]·gelu'(x[n])

import { gridFor } from '../gpu/grid.ts';
import type { Gpu, Recorder } from '../gpu/runtime.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { checkLength, checkTensor } from '../util/checks.ts';
import { geluBackwardWgsl, geluForwardWgsl } from './gelu.wgsl.ts';

/** vec4 when every invocation gets four whole elements (a binding also needs at least one vec4). */
function useVec4(n: number): boolean {
  return n % 4 === 0 && n > 0;
}

/** Records out = gelu(x); x and out: [n] f32 (any shape, same size). */
export function recordGeluForward(rec: Recorder, gpu: Gpu, t: { x: Tensor; out: Tensor }): void {
  checkTensor('geluForward', 'out', t.out, t.x.size);
  checkTensor('geluForward', 'x', t.x, t.x.size);
  const n = t.x.size;
  const vec4 = useVec4(n);
  const pipeline = gpu.pipeline(geluForwardWgsl(vec4), 'main', vec4 ? 'gelu_forward_vec4' : 'gelu_forward');
  const count = vec4 ? n / 4 : n;
  rec.dispatch(pipeline, [t.x, t.out, gpu.uniform([count])], ...gridFor(gpu, count, 64));
}

/** Records dinp = dout·gelu'(x); x, dout, dinp: [n] f32. */
export function recordGeluBackward(rec: Recorder, gpu: Gpu, t: { x: Tensor; dout: Tensor; dinp: Tensor }): void {
  const n = t.x.size;
  checkTensor('geluBackward', 'x', t.x, n);
  checkTensor('geluBackward', 'dout', t.dout, n);
  checkTensor('geluBackward', 'dinp', t.dinp, n);
  const vec4 = useVec4(n);
  const pipeline = gpu.pipeline(geluBackwardWgsl(vec4), 'main', vec4 ? 'gelu_backward_vec4' : 'gelu_backward');
  const count = vec4 ? n / 4 : n;
  rec.dispatch(pipeline, [t.x, t.dout, t.dinp, gpu.uniform([count])], ...gridFor(gpu, count, 64));
}

/** Host API: gelu of every element. */
export async function geluForward(gpu: Gpu, x: Float32Array): Promise<Float32Array> {
  const X = gpu.upload(x, [x.length], 'x');
  const Out = gpu.tensor([x.length], 'f32', 'out');
  try {
    gpu.run((rec) => recordGeluForward(rec, gpu, { x: X, out: Out }), 'gelu_forward');
    return await gpu.read(Out);
  } finally {
    gpu.destroy(X);
    gpu.destroy(Out);
  }
}

/** Host API: dout·gelu'(x), elementwise. */
export async function geluBackward(gpu: Gpu, x: Float32Array, dout: Float32Array): Promise<Float32Array> {
  checkLength('geluBackward', 'dout', dout, x.length);
  const X = gpu.upload(x, [x.length], 'x');
  const Dout = gpu.upload(dout, [x.length], 'dout');
  const Dinp = gpu.tensor([x.length], 'f32', 'dinp');
  try {
    gpu.run((rec) => recordGeluBackward(rec, gpu, { x: X, dout: Dout, dinp: Dinp }), 'gelu_backward');
    return await gpu.read(Dinp);
  } finally {
    for (const t of [X, Dout, Dinp]) gpu.destroy(t);
  }
}
