// Launcher and host API for the bias gradient (bias.wgsl.ts):  dbias[N] += Σ_r dout[r, N]

import { columnWorkgroupSize } from '../gpu/column-workgroup.ts';
import type { Gpu, Recorder } from '../gpu/runtime.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { ceilDiv } from '../gpu/wgsl.ts';
import { checkLength, checkSizes, checkTensor } from '../util/checks.ts';
import { biasBackwardWgsl } from './bias.wgsl.ts';

export interface BiasBackwardTensors {
  /** dout: [rows, N] f32 */
  dout: Tensor;
  /** dbias: [N] f32, added to */
  dbias: Tensor;
}

/** Records dbias += column sums of dout. */
export function recordBiasBackward(rec: Recorder, gpu: Gpu, t: BiasBackwardTensors, shape: { rows: number; N: number }): void {
  const { rows, N } = shape;
  checkSizes('biasBackward', { rows, N });
  checkTensor('biasBackward', 'dout', t.dout, rows * N);
  checkTensor('biasBackward', 'dbias', t.dbias, N);
  // vec4 needs whole vec4 rows, and a binding of at least one vec4.
  const vec4 = N % 4 === 0 && rows > 0;
  const workgroup = columnWorkgroupSize(gpu);
  const pipeline = gpu.pipeline(biasBackwardWgsl(vec4, workgroup), 'main', vec4 ? 'bias_backward_vec4' : 'bias_backward');
  rec.dispatch(pipeline, [t.dout, t.dbias, gpu.uniform([rows, N])], ceilDiv(vec4 ? N / 4 : N, workgroup));
}

/** Host API: the column sums of dout [rows, N] (plus `dbias`'s starting values when given). */
export async function biasBackward(gpu: Gpu, dout: Float32Array, shape: { rows: number; N: number }, dbias?: Float32Array): Promise<Float32Array> {
  checkSizes('biasBackward', { rows: shape.rows, N: shape.N });
  checkLength('biasBackward', 'dout', dout, shape.rows * shape.N);
  if (dbias) checkLength('biasBackward', 'dbias', dbias, shape.N);
  const Dout = gpu.upload(dout, [shape.rows, shape.N], 'dout');
  const Dbias = gpu.tensor([shape.N], 'f32', 'dbias');
  if (dbias) gpu.write(Dbias, dbias);
  try {
    gpu.run((rec) => recordBiasBackward(rec, gpu, { dout: Dout, dbias: Dbias }, shape), 'bias_backward');
    return await gpu.read(Dbias);
  } finally {
    gpu.destroy(Dout);
    gpu.destroy(Dbias);
  }
}
