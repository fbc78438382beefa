// Launchers and host API for LayerNorm (shapes and math in layernorm.wgsl.ts).

import { columnWorkgroupSize } from '../gpu/column-workgroup.ts';
import { gridFor } from '../gpu/grid.ts';
import type { Gpu, Recorder } from '../gpu/runtime.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { ceilDiv, f32Bits } from '../gpu/wgsl.ts';
import { checkLength, checkSizes, checkTensor } from '../util/checks.ts';
import { LAYERNORM_BACKWARD_INPUT_WGSL, LAYERNORM_FORWARD_WGSL, layerNormBackwardParamsWgsl } from './layernorm.wgsl.ts';

/** GPT-2's LayerNorm ε. */
export const LAYERNORM_EPS = 1e-5;

export interface LayerNormShape {
  /** Rows normalised independently (B·T). */
  rows: number;
  /** Features per row, ≥ 1. */
  D: number;
}

export interface LayerNormForwardTensors {
  /** x: [rows, D] f32 */
  x: Tensor;
  /** weight: [D] f32 */
  weight: Tensor;
  /** bias: [D] f32 */
  bias: Tensor;
  /** out: [rows, D] f32 */
  out: Tensor;
  /** stats: [2, rows] f32 — mean, then rstd; the backward reads them */
  stats: Tensor;
}

export interface LayerNormBackwardTensors {
  /** x: [rows, D] f32, the forward's input */
  x: Tensor;
  /** weight: [D] f32 */
  weight: Tensor;
  /** dout: [rows, D] f32 */
  dout: Tensor;
  /** stats: [2, rows] f32, from the forward */
  stats: Tensor;
  /** dinp: [rows, D] f32, added to */
  dinp: Tensor;
  /** dweight: [D] f32, added to */
  dweight: Tensor;
  /** dbias: [D] f32, added to */
  dbias: Tensor;
}

function checkShape(kernel: string, shape: LayerNormShape, eps: number): void {
  checkSizes(kernel, { rows: shape.rows, D: shape.D });
  if (shape.D < 1) throw new RangeError(`${kernel}: D must be at least 1, got ${shape.D}`);
  if (!(eps > 0 && Number.isFinite(eps))) throw new RangeError(`${kernel}: eps must be a positive finite number, got ${eps}`);
}

function params(gpu: Gpu, shape: LayerNormShape, eps: number): GPUBuffer {
  return gpu.uniform([shape.rows, shape.D, f32Bits(eps)]);
}

/** Records out = LayerNorm(x)·weight + bias and saves each row's mean and rstd in `stats`. */
export function recordLayerNormForward(rec: Recorder, gpu: Gpu, t: LayerNormForwardTensors, shape: LayerNormShape, eps = LAYERNORM_EPS): void {
  const k = 'layerNormForward';
  checkShape(k, shape, eps);
  const { rows, D } = shape;
  checkTensor(k, 'x', t.x, rows * D);
  checkTensor(k, 'weight', t.weight, D);
  checkTensor(k, 'bias', t.bias, D);
  checkTensor(k, 'out', t.out, rows * D);
  checkTensor(k, 'stats', t.stats, 2 * rows);
  const pipeline = gpu.pipeline(LAYERNORM_FORWARD_WGSL, 'main', 'layernorm_forward');
  rec.dispatch(pipeline, [t.x, t.weight, t.bias, t.out, t.stats, params(gpu, shape, eps)], ...gridFor(gpu, rows, 64));
}

/** Records dinp += ∂L/∂x, dweight += ∂L/∂weight, dbias += ∂L/∂bias (two dispatches). */
export function recordLayerNormBackward(rec: Recorder, gpu: Gpu, t: LayerNormBackwardTensors, shape: LayerNormShape): void {
  const k = 'layerNormBackward';
  checkShape(k, shape, LAYERNORM_EPS);
  const { rows, D } = shape;
  for (const name of ['x', 'dout', 'dinp'] as const) checkTensor(k, name, t[name], rows * D);
  for (const name of ['weight', 'dweight', 'dbias'] as const) checkTensor(k, name, t[name], D);
  checkTensor(k, 'stats', t.stats, 2 * rows);
  const p = params(gpu, shape, LAYERNORM_EPS);
  const input = gpu.pipeline(LAYERNORM_BACKWARD_INPUT_WGSL, 'main', 'layernorm_backward_input');
  rec.dispatch(input, [t.x, t.weight, t.dout, t.stats, t.dinp, p], ...gridFor(gpu, rows, 64));
  const workgroup = columnWorkgroupSize(gpu);
  // The parameter gradients take four features an invocation when D allows (layernorm.wgsl.ts).
  const vec4 = D % 4 === 0;
  const weights = gpu.pipeline(layerNormBackwardParamsWgsl(workgroup, vec4), 'main', vec4 ? 'layernorm_backward_params_vec4' : 'layernorm_backward_params');
  rec.dispatch(weights, [t.x, t.dout, t.stats, t.dweight, t.dbias, p], ceilDiv(vec4 ? D / 4 : D, workgroup));
}

/** Host API: LayerNorm of `x` [rows, D]; returns the output and the saved stats [2, rows]. */
export async function layerNormForward(
  gpu: Gpu,
  x: Float32Array,
  weight: Float32Array,
  bias: Float32Array,
  shape: LayerNormShape,
  eps = LAYERNORM_EPS,
): Promise<{ out: Float32Array; stats: Float32Array }> {
  const k = 'layerNormForward';
  checkShape(k, shape, eps);
  checkLength(k, 'x', x, shape.rows * shape.D);
  checkLength(k, 'weight', weight, shape.D);
  checkLength(k, 'bias', bias, shape.D);
  const t = {
    x: gpu.upload(x, [shape.rows, shape.D], 'x'),
    weight: gpu.upload(weight, [shape.D], 'weight'),
    bias: gpu.upload(bias, [shape.D], 'bias'),
    out: gpu.tensor([shape.rows, shape.D], 'f32', 'out'),
    stats: gpu.tensor([2, shape.rows], 'f32', 'stats'),
  };
  try {
    gpu.run((rec) => recordLayerNormForward(rec, gpu, t, shape, eps), k);
    return { out: await gpu.read(t.out), stats: await gpu.read(t.stats) };
  } finally {
    for (const tensor of Object.values(t)) gpu.destroy(tensor);
  }
}

/** Host API: the gradients of LayerNorm (starting from zero) given the forward's input and stats. */
export async function layerNormBackward(
  gpu: Gpu,
  x: Float32Array,
  weight: Float32Array,
  dout: Float32Array,
  stats: Float32Array,
  shape: LayerNormShape,
): Promise<{ dinp: Float32Array; dweight: Float32Array; dbias: Float32Array }> {
  const k = 'layerNormBackward';
  checkShape(k, shape, LAYERNORM_EPS);
  const { rows, D } = shape;
  checkLength(k, 'x', x, rows * D);
  checkLength(k, 'weight', weight, D);
  checkLength(k, 'dout', dout, rows * D);
  checkLength(k, 'stats', stats, 2 * rows);
  const t = {
    x: gpu.upload(x, [rows, D], 'x'),
    weight: gpu.upload(weight, [D], 'weight'),
    dout: gpu.upload(dout, [rows, D], 'dout'),
    stats: gpu.upload(stats, [2, rows], 'stats'),
    dinp: gpu.tensor([rows, D], 'f32', 'dinp'),
    dweight: gpu.tensor([D], 'f32', 'dweight'),
    dbias: gpu.tensor([D], 'f32', 'dbias'),
  };
  try {
    gpu.run((rec) => recordLayerNormBackward(rec, gpu, t, shape), k);
    return { dinp: await gpu.read(t.dinp), dweight: await gpu.read(t.dweight), dbias: await gpu.read(t.dbias) };
  } finally {
    for (const tensor of Object.values(t)) gpu.destroy(tensor);
  }
}
