// Launchers and host API for causal multi-head attention (math and layout in attention.wgsl.ts).
//
// Shape legend:  B batch · T tokens · H heads · hd = D/H · D width
//   qkv: [B, T, 3D] · out, dout: [B, T, D] · att: [B, H, T, T] · dqkv: [B, T, 3D]
//
// att takes B·H·T²·4 bytes: 0.5 MB at B=8, H=4, T=64; at B=64, H=8, T=256 it passes WebGPU's
// default 128 MiB per-binding limit, which the launchers check before WebGPU does.

import { gridFor } from '../gpu/grid.ts';
import type { Gpu, Recorder } from '../gpu/runtime.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { f32Bits } from '../gpu/wgsl.ts';
import { checkBindable, checkLength, checkPositiveSizes, checkTensor } from '../util/checks.ts';
import { ATTENTION_WORKGROUP, attentionBackwardKeyWgsl, attentionBackwardQueryWgsl, attentionForwardWgsl, rowsPerInvocation } from './attention.wgsl.ts';

export interface AttentionShape {
  B: number;
  T: number;
  /** Heads; D must be a multiple. */
  H: number;
  /** Model width; head width hd = D/H. */
  D: number;
}

/** The widest head the kernels compile for: per-row vectors live in private arrays of hd floats. */
export const MAX_HEAD_DIM = 128;

export interface AttentionForwardTensors {
  qkv: Tensor; // [B, T, 3D] f32
  out: Tensor; // [B, T, D] f32
  att: Tensor; // [B, H, T, T] f32, saved for the backward
}

export interface AttentionBackwardTensors {
  qkv: Tensor; // [B, T, 3D] f32, the forward's input
  att: Tensor; // [B, H, T, T] f32, the forward's probabilities
  out: Tensor; // [B, T, D] f32, the forward's output (δ_t = dout_t·out_t, attention.wgsl.ts)
  dout: Tensor; // [B, T, D] f32
  dqkv: Tensor; // [B, T, 3D] f32, overwritten (not accumulated): attention is qkv's only consumer
}

/** Records the forward: out and att from qkv. */
export function recordAttentionForward(rec: Recorder, gpu: Gpu, t: AttentionForwardTensors, shape: AttentionShape): void {
  const hd = checkAttentionShape(shape, 'attention');
  const { B, T, H, D } = shape;
  checkTensor('attention', 'qkv', t.qkv, B * T * 3 * D);
  checkTensor('attention', 'out', t.out, B * T * D);
  checkTensor('attention', 'att', t.att, B * H * T * T);
  checkBindable('attention', gpu, t.att, 'att');
  const R = rowsPerInvocation(hd);
  const pipeline = gpu.pipeline(attentionForwardWgsl(hd, R), 'main', `attention_forward_hd${hd}_r${R}`);
  rec.dispatch(pipeline, [t.qkv, t.out, t.att, params(gpu, shape, hd)], ...gridFor(gpu, B * H * Math.ceil(T / R), ATTENTION_WORKGROUP));
}

/** Records the backward: dqkv from dout, in two dispatches (queries, then keys). */
export function recordAttentionBackward(rec: Recorder, gpu: Gpu, t: AttentionBackwardTensors, shape: AttentionShape): void {
  const hd = checkAttentionShape(shape, 'attentionBackward');
  const { B, T, H, D } = shape;
  checkTensor('attentionBackward', 'qkv', t.qkv, B * T * 3 * D);
  checkTensor('attentionBackward', 'att', t.att, B * H * T * T);
  checkTensor('attentionBackward', 'out', t.out, B * T * D);
  checkTensor('attentionBackward', 'dout', t.dout, B * T * D);
  checkTensor('attentionBackward', 'dqkv', t.dqkv, B * T * 3 * D);
  checkBindable('attentionBackward', gpu, t.att, 'att');
  const u = params(gpu, shape, hd);
  const R = rowsPerInvocation(hd);
  const grid = gridFor(gpu, B * H * Math.ceil(T / R), ATTENTION_WORKGROUP);
  const query = gpu.pipeline(attentionBackwardQueryWgsl(hd, R), 'main', `attention_backward_query_hd${hd}_r${R}`);
  rec.dispatch(query, [t.qkv, t.att, t.out, t.dout, t.dqkv, u], ...grid);
  const key = gpu.pipeline(attentionBackwardKeyWgsl(hd, R), 'main', `attention_backward_key_hd${hd}_r${R}`);
  rec.dispatch(key, [t.qkv, t.att, t.out, t.dout, t.dqkv, u], ...grid);
}

/** Host API: the forward on plain arrays. */
export async function attentionForward(gpu: Gpu, qkv: Float32Array, shape: AttentionShape): Promise<{ out: Float32Array; att: Float32Array }> {
  checkAttentionShape(shape, 'attention');
  const { B, T, H, D } = shape;
  checkLength('attention', 'qkv', qkv, B * T * 3 * D);
  const tensors = {
    qkv: gpu.upload(qkv, [B, T, 3 * D], 'qkv'),
    out: gpu.tensor([B, T, D], 'f32', 'out'),
    att: gpu.tensor([B, H, T, T], 'f32', 'att'),
  };
  try {
    gpu.run((rec) => recordAttentionForward(rec, gpu, tensors, shape), 'attention');
    return { out: await gpu.read(tensors.out), att: await gpu.read(tensors.att) };
  } finally {
    for (const x of Object.values(tensors)) gpu.destroy(x);
  }
}

/** Host API: the backward on plain arrays (att and out as returned by `attentionForward`). */
export async function attentionBackward(
  gpu: Gpu,
  qkv: Float32Array,
  att: Float32Array,
  out: Float32Array,
  dout: Float32Array,
  shape: AttentionShape,
): Promise<Float32Array> {
  checkAttentionShape(shape, 'attentionBackward');
  const { B, T, H, D } = shape;
  checkLength('attentionBackward', 'qkv', qkv, B * T * 3 * D);
  checkLength('attentionBackward', 'att', att, B * H * T * T);
  checkLength('attentionBackward', 'out', out, B * T * D);
  checkLength('attentionBackward', 'dout', dout, B * T * D);
  const tensors = {
    qkv: gpu.upload(qkv, [B, T, 3 * D], 'qkv'),
    att: gpu.upload(att, [B, H, T, T], 'att'),
    out: gpu.upload(out, [B, T, D], 'out'),
    dout: gpu.upload(dout, [B, T, D], 'dout'),
    dqkv: gpu.tensor([B, T, 3 * D], 'f32', 'dqkv'),
  };
  try {
    gpu.run((rec) => recordAttentionBackward(rec, gpu, tensors, shape), 'attention backward');
    return await gpu.read(tensors.dqkv);
  } finally {
    for (const x of Object.values(tensors)) gpu.destroy(x);
  }
}

/** Validates the shape and returns the head width. */
export function checkAttentionShape(shape: AttentionShape, kernel: string): number {
  checkPositiveSizes(kernel, { B: shape.B, T: shape.T, H: shape.H, D: shape.D });
  if (shape.D % shape.H !== 0) throw new RangeError(`${kernel}: D (${shape.D}) must be a multiple of H (${shape.H})`);
  const hd = shape.D / shape.H;
  if (hd > MAX_HEAD_DIM) throw new RangeError(`${kernel}: head width D/H = ${hd} exceeds ${MAX_HEAD_DIM}`);
  return hd;
}

function params(gpu: Gpu, shape: AttentionShape, hd: number): GPUBuffer {
  return gpu.uniform([shape.B, shape.H, shape.T, f32Bits(1 / Math.sqrt(hd))]);
}
