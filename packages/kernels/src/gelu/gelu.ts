// Launchers and host API for GELU (math in gelu.wgsl.ts).  out[n] = gelu(x[n]);  dinp[n] = dout[n]·gelu'(x[n])

import { gridFor } from '../gpu/grid.ts';
import type { Gpu, Recorder } from '../gpu/runtime.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { checkLength, checkTensor } from '../util/check.ts';
import { GELU_BACKWARD_WGSL, GELU_FORWARD_WGSL } from './gelu.wgsl.ts';

/** Records out = gelu(x); x and out: [n] f32 (any shape, same size). */
export function recordGeluForward(rec: Recorder, gpu: Gpu, t: { x: Tensor; out: Tensor }): void {
  checkTensor('geluForward', 'out', t.out, t.x.size);
  checkTensor('geluForward', 'x', t.x, t.x.size);
  const pipeline = gpu.pipeline(GELU_FORWARD_WGSL, 'main', 'gelu_forward');
  rec.dispatch(pipeline, [t.x, t.out, gpu.uniform([t.x.size])], ...gridFor(gpu, t.x.size, 64));
}

/** Records dinp = dout·gelu'(x); x, dout, dinp: [n] f32. */
export function recordGeluBackward(rec: Recorder, gpu: Gpu, t: { x: Tensor; dout: Tensor; dinp: Tensor }): void {
  const n = t.x.size;
  checkTensor('geluBackward', 'x', t.x, n);
  checkTensor('geluBackward', 'dout', t.dout, n);
  checkTensor('geluBackward', 'dinp', t.dinp, n);
  const pipeline = gpu.pipeline(GELU_BACKWARD_WGSL, 'main', 'gelu_backward');
  rec.dispatch(pipeline, [t.x, t.dout, t.dinp, gpu.uniform([n])], ...gridFor(gpu, n, 64));
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
