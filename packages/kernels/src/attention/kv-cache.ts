// Launchers and host API for the KV cache (math and layout in kv-cache.wgsl.ts).
//
// Shape legend:  B batch · S new tokens per sequence · H heads · hd = D/H · Tmax cache length
//   qkv: [B, S, 3D] · pos: [B] u32 (write), [B, S] u32 (decode) · kCache, vCache: [B, H, Tmax, hd] · out: [B, S, D]
//
// A generation step: write the new token's k, v at pos[b] (S = 1), decode, then pos[b] += 1 (the
// caller writes pos with `gpu.write`: it changes every step, so it is a storage tensor, not a uniform).
// Prefill of a chunk of S context tokens per sequence: write their k, v at pos[b] … pos[b] + S − 1,
// then decode with S queries per sequence, each at its own position.

import { gridFor } from '../gpu/grid.ts';
import type { Gpu, Recorder } from '../gpu/runtime.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { f32Bits } from '../gpu/wgsl.ts';
import { checkLength, checkPositiveSizes, checkTensor } from '../util/checks.ts';
import { MAX_HEAD_DIM } from './attention.ts';
import { decodeAttentionWgsl, KV_WORKGROUP, kvCacheWriteWgsl } from './kv-cache.wgsl.ts';

export interface KvCacheShape {
  B: number;
  H: number;
  /** Model width; head width hd = D/H. */
  D: number;
  /** Cache length (the context length). */
  Tmax: number;
}

export interface KvCacheWriteTensors {
  qkv: Tensor; // [B, S, 3D] f32
  pos: Tensor; // [B] u32
  kCache: Tensor; // [B, H, Tmax, hd] f32
  vCache: Tensor; // [B, H, Tmax, hd] f32
}

export interface DecodeAttentionTensors {
  qkv: Tensor; // [B, S, 3D] f32, the new tokens' rows
  kCache: Tensor; // [B, H, Tmax, hd] f32
  vCache: Tensor; // [B, H, Tmax, hd] f32
  pos: Tensor; // [B, S] u32, each new token's position
  out: Tensor; // [B, S, D] f32
}

/** Records the cache write of S new tokens per sequence at positions pos[b] … pos[b] + S − 1. */
export function recordKvCacheWrite(rec: Recorder, gpu: Gpu, t: KvCacheWriteTensors, shape: KvCacheShape, S = 1): void {
  const hd = checkKvCacheShape(shape, 'kvCacheWrite');
  checkTokenCount(S);
  const { B, H, D, Tmax } = shape;
  checkTensor('kvCacheWrite', 'qkv', t.qkv, B * S * 3 * D);
  checkTensor('kvCacheWrite', 'pos', t.pos, B, 'u32');
  checkTensor('kvCacheWrite', 'kCache', t.kCache, B * H * Tmax * hd);
  checkTensor('kvCacheWrite', 'vCache', t.vCache, B * H * Tmax * hd);
  const pipeline = gpu.pipeline(kvCacheWriteWgsl(), 'main', 'kv_cache_write');
  const params = gpu.uniform([B, S, H, hd, Tmax]);
  rec.dispatch(pipeline, [t.qkv, t.pos, t.kCache, t.vCache, params], ...gridFor(gpu, B * S * D, KV_WORKGROUP));
}

/** Records the attention of S new tokens per sequence (S = 1: a decode step): out[b, s] from q over cache positions 0 … pos[b, s]. */
export function recordDecodeAttention(rec: Recorder, gpu: Gpu, t: DecodeAttentionTensors, shape: KvCacheShape, S = 1): void {
  const hd = checkKvCacheShape(shape, 'decodeAttention');
  checkTokenCount(S, 'decodeAttention');
  const { B, H, D, Tmax } = shape;
  checkTensor('decodeAttention', 'qkv', t.qkv, B * S * 3 * D);
  checkTensor('decodeAttention', 'kCache', t.kCache, B * H * Tmax * hd);
  checkTensor('decodeAttention', 'vCache', t.vCache, B * H * Tmax * hd);
  checkTensor('decodeAttention', 'pos', t.pos, B * S, 'u32');
  checkTensor('decodeAttention', 'out', t.out, B * S * D);
  const pipeline = gpu.pipeline(decodeAttentionWgsl(hd), 'main', `decode_attention_hd${hd}`);
  const params = gpu.uniform([B, S, H, Tmax, f32Bits(1 / Math.sqrt(hd))]);
  rec.dispatch(pipeline, [t.qkv, t.kCache, t.vCache, t.pos, t.out, params], ...gridFor(gpu, B * S * H, KV_WORKGROUP));
}

/** Host API: the caches after writing `qkv` ([B, S, 3D]) at `pos`. */
export async function kvCacheWrite(
  gpu: Gpu,
  qkv: Float32Array,
  pos: Uint32Array,
  kCache: Float32Array,
  vCache: Float32Array,
  shape: KvCacheShape,
  S = 1,
): Promise<{ kCache: Float32Array; vCache: Float32Array }> {
  const hd = checkKvCacheShape(shape, 'kvCacheWrite');
  checkTokenCount(S);
  const { B, H, D, Tmax } = shape;
  checkLength('kvCacheWrite', 'qkv', qkv, B * S * 3 * D);
  checkPositions('kvCacheWrite', pos, B, Tmax);
  checkLength('kvCacheWrite', 'kCache', kCache, B * H * Tmax * hd);
  checkLength('kvCacheWrite', 'vCache', vCache, B * H * Tmax * hd);
  const tensors = {
    qkv: gpu.upload(qkv, [B, S, 3 * D], 'qkv'),
    pos: gpu.upload(pos, [B], 'pos'),
    kCache: gpu.tensor([B, H, Tmax, hd], 'f32', 'kCache'),
    vCache: gpu.tensor([B, H, Tmax, hd], 'f32', 'vCache'),
  };
  gpu.write(tensors.kCache, kCache);
  gpu.write(tensors.vCache, vCache);
  try {
    gpu.run((rec) => recordKvCacheWrite(rec, gpu, tensors, shape, S), 'kv cache write');
    return { kCache: await gpu.read(tensors.kCache), vCache: await gpu.read(tensors.vCache) };
  } finally {
    for (const x of Object.values(tensors)) gpu.destroy(x);
  }
}

/** Host API: the attention output [B, S, D] of S new tokens per sequence (S = 1: one decode step's). */
export async function decodeAttention(
  gpu: Gpu,
  qkv: Float32Array,
  kCache: Float32Array,
  vCache: Float32Array,
  pos: Uint32Array,
  shape: KvCacheShape,
  S = 1,
): Promise<Float32Array> {
  const hd = checkKvCacheShape(shape, 'decodeAttention');
  checkTokenCount(S, 'decodeAttention');
  const { B, H, D, Tmax } = shape;
  checkLength('decodeAttention', 'qkv', qkv, B * S * 3 * D);
  checkLength('decodeAttention', 'kCache', kCache, B * H * Tmax * hd);
  checkLength('decodeAttention', 'vCache', vCache, B * H * Tmax * hd);
  checkPositions('decodeAttention', pos, B * S, Tmax);
  const tensors = {
    qkv: gpu.upload(qkv, [B, S, 3 * D], 'qkv'),
    kCache: gpu.upload(kCache, [B, H, Tmax, hd], 'kCache'),
    vCache: gpu.upload(vCache, [B, H, Tmax, hd], 'vCache'),
    pos: gpu.upload(pos, [B, S], 'pos'),
    out: gpu.tensor([B, S, D], 'f32', 'out'),
  };
  try {
    gpu.run((rec) => recordDecodeAttention(rec, gpu, tensors, shape, S), 'decode attention');
    return await gpu.read(tensors.out);
  } finally {
    for (const x of Object.values(tensors)) gpu.destroy(x);
  }
}

function checkKvCacheShape(shape: KvCacheShape, kernel: string): number {
  checkPositiveSizes(kernel, { B: shape.B, H: shape.H, D: shape.D, Tmax: shape.Tmax });
  if (shape.D % shape.H !== 0) throw new RangeError(`${kernel}: D (${shape.D}) must be a multiple of H (${shape.H})`);
  const hd = shape.D / shape.H;
  if (hd > MAX_HEAD_DIM) throw new RangeError(`${kernel}: head width D/H = ${hd} exceeds ${MAX_HEAD_DIM}`);
  return hd;
}

function checkTokenCount(S: number, kernel = 'kvCacheWrite'): void {
  if (!Number.isInteger(S) || S < 1) throw new RangeError(`${kernel}: S must be a positive integer, got ${S}`);
}

function checkPositions(kernel: string, pos: Uint32Array, B: number, Tmax: number): void {
  checkLength(kernel, 'pos', pos, B);
  const bad = pos.findIndex((p) => p >= Tmax);
  if (bad >= 0) throw new RangeError(`${kernel}: pos[${bad}] = ${pos[bad]} is outside the cache of Tmax = ${Tmax}`);
}
