// Launcher for the register-blocked matmul. Shapes as in matmul.wgsl.ts:
//   C[batch, M, N] = op(A) · op(B) (+ bias[N])

import type { Gpu, Recorder } from '../gpu/runtime.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { ceilDiv } from '../gpu/wgsl.ts';
import { MATMUL_TILE, type MatmulLayout, type MatmulVariant, matmulWgsl } from './matmul.wgsl.ts';

export interface MatmulShape {
  M: number;
  K: number;
  N: number;
  /** Independent products stacked along the leading axis; default 1. */
  batch?: number;
  layout?: MatmulLayout;
}

export interface MatmulOperands {
  a: Tensor;
  b: Tensor;
  c: Tensor;
  bias?: Tensor;
}

export function chooseMatmulVariant(shape: MatmulShape, hasBias: boolean): MatmulVariant {
  const layout = shape.layout ?? 'nn';
  const vec4 = layout === 'nn' && shape.K % 4 === 0 && shape.N % 4 === 0 && shape.K > 0;
  return { layout, bias: hasBias, vec4 };
}

/** Records C = op(A)·op(B) (+ bias) into `rec`. */
export function recordMatmul(rec: Recorder, gpu: Gpu, ops: MatmulOperands, shape: MatmulShape): void {
  const { M, K, N } = shape;
  const batch = shape.batch ?? 1;
  checkOperands(ops, { M, K, N, batch });
  const variant = chooseMatmulVariant(shape, ops.bias !== undefined);
  const pipeline = gpu.pipeline(matmulWgsl(variant), 'main', `matmul_${variant.layout}${variant.vec4 ? '_vec4' : ''}${variant.bias ? '_bias' : ''}`);
  const params = gpu.uniform([M, K, N, batch]);
  const bindings = ops.bias ? [ops.a, ops.b, ops.c, params, ops.bias] : [ops.a, ops.b, ops.c, params];
  rec.dispatch(pipeline, bindings, ceilDiv(N, MATMUL_TILE.cols), ceilDiv(M, MATMUL_TILE.rows), batch);
}

/** Host API: multiplies plain arrays on the GPU and returns C. */
export async function matmul(gpu: Gpu, a: Float32Array, b: Float32Array, shape: MatmulShape, bias?: Float32Array): Promise<Float32Array> {
  const batch = shape.batch ?? 1;
  const A = gpu.upload(a, [a.length], 'A');
  const B = gpu.upload(b, [b.length], 'B');
  const C = gpu.tensor([batch, shape.M, shape.N], 'f32', 'C');
  const Bias = bias ? gpu.upload(bias, [bias.length], 'bias') : undefined;
  try {
    gpu.run((rec) => recordMatmul(rec, gpu, { a: A, b: B, c: C, ...(Bias ? { bias: Bias } : {}) }, shape), 'matmul');
    return await gpu.read(C);
  } finally {
    for (const t of [A, B, C, Bias]) if (t) gpu.destroy(t);
  }
}

function checkOperands(ops: MatmulOperands, s: { M: number; K: number; N: number; batch: number }): void {
  for (const [name, v] of Object.entries(s)) {
    if (!Number.isInteger(v) || v < 0) throw new RangeError(`matmul: ${name} must be a non-negative integer, got ${v}`);
  }
  const expect = (t: Tensor, n: number, name: string) => {
    if (t.size !== n) throw new RangeError(`matmul: ${name} (${t}) must hold ${n} values for M=${s.M}, K=${s.K}, N=${s.N}, batch=${s.batch}`);
  };
  expect(ops.a, s.batch * s.M * s.K, 'A');
  expect(ops.b, s.batch * s.K * s.N, 'B');
  expect(ops.c, s.batch * s.M * s.N, 'C');
  if (ops.bias) expect(ops.bias, s.N, 'bias');
}
