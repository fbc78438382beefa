// Launcher for the register-blocked matmul. Shapes as in matmul.wgsl.ts:
//   C[batch, M, N] (+)= op(A) · op(B) (+ bias[N])

import type { Gpu, Recorder } from '../gpu/runtime.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { ceilDiv } from '../gpu/wgsl.ts';
import { checkLength, checkSizes, checkTensor } from '../util/checks.ts';
import { type MatmulBlocking, type MatmulLayout, type MatmulVariant, matmulBlockingFor, matmulTile, matmulWgsl } from './matmul.wgsl.ts';

/** The narrowest C whose rows of A are shared (see chooseMatmulVariant). */
const SHARED_ROWS_MIN_N = 32;

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
  /** Added to C at the store (C's shape): the residual stream, fused. */
  addend?: Tensor;
  /** Also written: gelu(C), C's shape (the MLP forward's activation, fused). */
  geluOut?: Tensor;
  /** C is multiplied by gelu'(geluSlopeAt) at the store, C's shape (the MLP backward, fused). */
  geluSlopeAt?: Tensor;
  /** tn, batch 1: rowSumsOfA[m] += Σ_k A[k, m] ([M]): the bias gradient beside dW, fused. */
  rowSumsOfA?: Tensor;
}

export interface MatmulOptions {
  /** C += op(A)·op(B) (+ bias) instead of overwriting C: gradient accumulation. */
  accumulate?: boolean;
}

/**
 * Which kernel a shape gets: vec4 when the contiguous axes are multiples of 4 (matmul.wgsl.ts); on a
 * device with quad subgroups a vec4 path shares A's rows between the four lanes of a row when C is
 * wide enough to keep all four busy (N ≥ 32: four lanes × 8 columns). Narrower, three of the four
 * lanes would compute clamped columns only to keep the subgroup whole: the lm head's [768, 13]
 * took 3.1 ms shared against 0.6 ms unshared (2026-12-04).
 */
export function chooseMatmulVariant(shape: MatmulShape, hasBias: boolean, accumulate = false, quadSubgroups = false): MatmulVariant {
  const layout = shape.layout ?? 'nn';
  const { M, K, N } = shape;
  const fits = layout === 'nn' ? K % 4 === 0 && N % 4 === 0 : layout === 'nt' ? K % 4 === 0 : M % 4 === 0 && N % 4 === 0;
  const vec4 = K > 0 && fits;
  const shareRows = quadSubgroups && vec4 && N >= SHARED_ROWS_MIN_N;
  const alignedColumns = vec4 && layout === 'nt' && N % 4 === 0;
  return { layout, bias: hasBias, accumulate, vec4, ...(shareRows ? { shareRows } : {}), ...(alignedColumns ? { alignedColumns } : {}) };
}

/** Records C (+)= op(A)·op(B) (+ bias) into `rec`. */
export function recordMatmul(rec: Recorder, gpu: Gpu, ops: MatmulOperands, shape: MatmulShape, options: MatmulOptions = {}): void {
  const { M, K, N } = shape;
  const batch = shape.batch ?? 1;
  checkOperands(ops, { M, K, N, batch });
  const variant = { ...chooseMatmulVariant(shape, ops.bias !== undefined, options.accumulate ?? false, gpu.report.quadSubgroups === true), ...epilogueOf(ops) };
  const blocking = matmulBlockingFor(variant);
  const epilogue = `${variant.addend ? '_addend' : ''}${variant.gelu ? `_gelu_${variant.gelu}` : ''}${variant.rowSums ? '_rowsums' : ''}`;
  const label = `matmul_${variant.layout}${variant.vec4 ? '_vec4' : ''}${variant.bias ? '_bias' : ''}${variant.accumulate ? '_acc' : ''}${epilogue}${variant.shareRows ? '_shared' : ''}`;
  const pipeline = gpu.pipeline(cachedWgsl(variant, blocking), 'main', label);
  const params = gpu.uniform([M, K, N, batch]);
  const extra = [ops.bias, ops.addend, ops.geluOut ?? ops.geluSlopeAt, ops.rowSumsOfA].filter((t): t is Tensor => t !== undefined);
  const bindings = [ops.a, ops.b, ops.c, params, ...extra];
  const tile = matmulTile(blocking);
  rec.dispatch(pipeline, bindings, ceilDiv(N, tile.cols), ceilDiv(M, tile.rows), batch);
}

/** The variant fields an operand set asks for (matmul.wgsl.ts's epilogues). */
function epilogueOf(ops: MatmulOperands): Pick<MatmulVariant, 'addend' | 'gelu' | 'rowSums'> {
  if (ops.geluOut && ops.geluSlopeAt) throw new RangeError('matmul: geluOut and geluSlopeAt are two epilogues; pass one');
  const gelu = ops.geluOut ? 'value' : ops.geluSlopeAt ? 'slope' : undefined;
  return { ...(ops.addend ? { addend: true } : {}), ...(gelu ? { gelu } : {}), ...(ops.rowSumsOfA ? { rowSums: true } : {}) };
}

/**
 * Generated sources by variant: a training step launches ~27 matmuls, and building each one's WGSL
 * again took ~1.8 ms of the main thread per step, ahead of the submit (2026-12-04).
 */
const wgslCache = new Map<string, string>();

function cachedWgsl(variant: MatmulVariant, blocking: MatmulBlocking): string {
  const key = JSON.stringify([variant, blocking]);
  let wgsl = wgslCache.get(key);
  if (wgsl === undefined) {
    wgsl = matmulWgsl(variant, blocking);
    wgslCache.set(key, wgsl);
  }
  return wgsl;
}

/**
 * Host API: multiplies plain arrays on the GPU and returns C. With `accumulateInto` (C's starting
 * values) it returns accumulateInto + op(A)·op(B) (+ bias).
 */
export async function matmul(
  gpu: Gpu,
  a: Float32Array,
  b: Float32Array,
  shape: MatmulShape,
  bias?: Float32Array,
  options: { accumulateInto?: Float32Array } = {},
): Promise<Float32Array> {
  const batch = shape.batch ?? 1;
  const size = batch * shape.M * shape.N;
  if (options.accumulateInto) checkLength('matmul', 'accumulateInto', options.accumulateInto, size);
  const A = gpu.upload(a, [a.length], 'A');
  const B = gpu.upload(b, [b.length], 'B');
  const C = gpu.tensor([batch, shape.M, shape.N], 'f32', 'C');
  if (options.accumulateInto) gpu.write(C, options.accumulateInto);
  const Bias = bias ? gpu.upload(bias, [bias.length], 'bias') : undefined;
  try {
    const ops = { a: A, b: B, c: C, ...(Bias ? { bias: Bias } : {}) };
    gpu.run((rec) => recordMatmul(rec, gpu, ops, shape, { accumulate: options.accumulateInto !== undefined }), 'matmul');
    return await gpu.read(C);
  } finally {
    for (const t of [A, B, C, Bias]) if (t) gpu.destroy(t);
  }
}

function checkOperands(ops: MatmulOperands, s: { M: number; K: number; N: number; batch: number }): void {
  checkSizes('matmul', s);
  const shape = `M=${s.M}, K=${s.K}, N=${s.N}, batch=${s.batch}`;
  checkTensor('matmul', `A for ${shape}`, ops.a, s.batch * s.M * s.K);
  checkTensor('matmul', `B for ${shape}`, ops.b, s.batch * s.K * s.N);
  checkTensor('matmul', `C for ${shape}`, ops.c, s.batch * s.M * s.N);
  if (ops.bias) checkTensor('matmul', `bias for ${shape}`, ops.bias, s.N);
  for (const key of ['addend', 'geluOut', 'geluSlopeAt'] as const) {
    const t = ops[key];
    if (t) checkTensor('matmul', `${key} for ${shape}`, t, s.batch * s.M * s.N);
  }
  if (ops.rowSumsOfA) {
    if (s.batch !== 1) throw new RangeError(`matmul: rowSumsOfA sums over one product; got batch ${s.batch}`);
    checkTensor('matmul', `rowSumsOfA for ${shape}`, ops.rowSumsOfA, s.M);
  }
}
