// Launchers and host API for the token + position embedding (shapes and math in embedding.wgsl.ts).

import { gridFor } from '../gpu/grid.ts';
import type { Gpu, Recorder } from '../gpu/runtime.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { ceilDiv } from '../gpu/wgsl.ts';
import { checkLength, checkSizes, checkTensor } from '../util/checks.ts';
import { EMBEDDING_BACKWARD_WPE_WGSL, EMBEDDING_BACKWARD_WTE_WGSL, EMBEDDING_FORWARD_WGSL } from './embedding.wgsl.ts';

export interface EmbeddingShape {
  B: number;
  T: number;
  /** Vocabulary size, ≥ 1; ids ≥ V are masked (a zero token embedding). */
  V: number;
  /** Width, ≥ 1. */
  D: number;
}

export interface EmbeddingForwardTensors {
  /** tokens: [B, T] u32 */
  tokens: Tensor;
  /** wte: [V, D] f32 */
  wte: Tensor;
  /** wpe: [contextLength ≥ T, D] f32 */
  wpe: Tensor;
  /** x: [B, T, D] f32 */
  x: Tensor;
}

export interface EmbeddingBackwardTensors {
  /** tokens: [B, T] u32 */
  tokens: Tensor;
  /** dx: [B, T, D] f32 */
  dx: Tensor;
  /** dwte: [V, D] f32, added to */
  dwte: Tensor;
  /** dwpe: [contextLength ≥ T, D] f32, rows < T added to */
  dwpe: Tensor;
}

function checkShape(kernel: string, s: EmbeddingShape): void {
  checkSizes(kernel, { B: s.B, T: s.T, V: s.V, D: s.D });
  if (s.V < 1) throw new RangeError(`${kernel}: V must be at least 1, got ${s.V}`);
  if (s.D < 1) throw new RangeError(`${kernel}: D must be at least 1, got ${s.D}`);
}

function checkPositions(kernel: string, name: string, wpe: Tensor, s: EmbeddingShape): void {
  if (wpe.dtype !== 'f32' || wpe.size % s.D !== 0 || wpe.size < s.T * s.D) {
    throw new RangeError(`${kernel}: ${name} (${wpe}) must be f32 [contextLength, ${s.D}] with contextLength ≥ T = ${s.T}`);
  }
}

/** Records x = wte[tokens] + wpe[0..T). */
export function recordEmbeddingForward(rec: Recorder, gpu: Gpu, t: EmbeddingForwardTensors, shape: EmbeddingShape): void {
  const k = 'embeddingForward';
  checkShape(k, shape);
  const { B, T, V, D } = shape;
  checkTensor(k, 'tokens', t.tokens, B * T, 'u32');
  checkTensor(k, 'wte', t.wte, V * D);
  checkPositions(k, 'wpe', t.wpe, shape);
  checkTensor(k, 'x', t.x, B * T * D);
  const pipeline = gpu.pipeline(EMBEDDING_FORWARD_WGSL, 'main', 'embedding_forward');
  rec.dispatch(pipeline, [t.tokens, t.wte, t.wpe, t.x, gpu.uniform([B, T, D, V])], ...gridFor(gpu, B * T * D, 64));
}

/** Records dwte += scatter of dx by token id and dwpe += dx summed over the batch (two dispatches). */
export function recordEmbeddingBackward(rec: Recorder, gpu: Gpu, t: EmbeddingBackwardTensors, shape: EmbeddingShape): void {
  const k = 'embeddingBackward';
  checkShape(k, shape);
  const { B, T, V, D } = shape;
  checkTensor(k, 'tokens', t.tokens, B * T, 'u32');
  checkTensor(k, 'dx', t.dx, B * T * D);
  checkTensor(k, 'dwte', t.dwte, V * D);
  checkPositions(k, 'dwpe', t.dwpe, shape);
  const params = gpu.uniform([B, T, D, V]);
  const wte = gpu.pipeline(EMBEDDING_BACKWARD_WTE_WGSL, 'main', 'embedding_backward_wte');
  rec.dispatch(wte, [t.tokens, t.dx, t.dwte, params], ceilDiv(V, 64));
  const wpe = gpu.pipeline(EMBEDDING_BACKWARD_WPE_WGSL, 'main', 'embedding_backward_wpe');
  rec.dispatch(wpe, [t.dx, t.dwpe, params], ...gridFor(gpu, T * D, 64));
}

/** Host API: x [B, T, D] from tokens [B, T], wte [V, D] and wpe [≥T, D]. */
export async function embeddingForward(gpu: Gpu, tokens: Uint32Array, wte: Float32Array, wpe: Float32Array, shape: EmbeddingShape): Promise<Float32Array> {
  const k = 'embeddingForward';
  checkShape(k, shape);
  const { B, T, V, D } = shape;
  checkLength(k, 'tokens', tokens, B * T);
  checkLength(k, 'wte', wte, V * D);
  if (wpe.length % D !== 0 || wpe.length < T * D) throw new RangeError(`${k}: wpe holds ${wpe.length} values, expected [contextLength ≥ ${T}, ${D}]`);
  const t = {
    tokens: gpu.upload(tokens, [B, T], 'tokens'),
    wte: gpu.upload(wte, [V, D], 'wte'),
    wpe: gpu.upload(wpe, [wpe.length / D, D], 'wpe'),
    x: gpu.tensor([B, T, D], 'f32', 'x'),
  };
  try {
    gpu.run((rec) => recordEmbeddingForward(rec, gpu, t, shape), k);
    return await gpu.read(t.x);
  } finally {
    for (const tensor of Object.values(t)) gpu.destroy(tensor);
  }
}

/** Host API: the embedding gradients (from zero); dwpe has T rows. */
export async function embeddingBackward(
  gpu: Gpu,
  tokens: Uint32Array,
  dx: Float32Array,
  shape: EmbeddingShape,
): Promise<{ dwte: Float32Array; dwpe: Float32Array }> {
  const k = 'embeddingBackward';
  checkShape(k, shape);
  const { B, T, V, D } = shape;
  checkLength(k, 'tokens', tokens, B * T);
  checkLength(k, 'dx', dx, B * T * D);
  const t = {
    tokens: gpu.upload(tokens, [B, T], 'tokens'),
    dx: gpu.upload(dx, [B, T, D], 'dx'),
    dwte: gpu.tensor([V, D], 'f32', 'dwte'),
    dwpe: gpu.tensor([T, D], 'f32', 'dwpe'),
  };
  try {
    gpu.run((rec) => recordEmbeddingBackward(rec, gpu, t, shape), k);
    return { dwte: await gpu.read(t.dwte), dwpe: await gpu.read(t.dwpe) };
  } finally {
    for (const tensor of Object.values(t)) gpu.destroy(tensor);
  }
}
