// One transformer block's forward, recorded once for the two callers that run it: the training
// forward (gpt.ts, all T positions with full causal attention, activations kept for the backward)
// and the decode forward (generate.ts, one new position per row against the KV cache). Only the
// attention step differs, so it is a parameter; everything around it is this one function.
//
// Shape legend:  R rows (B·T in training, B when decoding) · D width · F = 4D

import { type Gpu, type Recorder, recordLayerNormForward, recordMatmul, type Tensor } from '@horizon/kernels';
import { LAYER_NORM_EPS } from './config.ts';

/** One layer's parameters (or gradients) as views into the flat buffer. */
export interface LayerTensors {
  ln1w: Tensor; // [D]
  ln1b: Tensor; // [D]
  qkvw: Tensor; // [3D, D]
  qkvb: Tensor; // [3D]
  projw: Tensor; // [D, D]
  projb: Tensor; // [D]
  ln2w: Tensor; // [D]
  ln2b: Tensor; // [D]
  fcw: Tensor; // [F, D]
  fcb: Tensor; // [F]
  fc2w: Tensor; // [D, F]
  fc2b: Tensor; // [D]
}

/**
 * The buffers one block reads and writes. A caller that needs nothing for a backward may pass the
 * same tensor for ln1 and ln2 (and for their stats), and `out` may be `x`: each is last read before
 * it is next written.
 */
export interface BlockBuffers {
  x: Tensor; // [R, D] the residual stream entering the block
  ln1: Tensor; // [R, D]
  ln1Stats: Tensor; // [2, R]
  qkv: Tensor; // [R, 3D]
  attn: Tensor; // [R, D] attention output, before the projection
  mid: Tensor; // [R, D] x + attn·projᵀ + b
  ln2: Tensor; // [R, D]
  ln2Stats: Tensor; // [2, R]
  fc: Tensor; // [R, F]
  gelu: Tensor; // [R, F]
  out: Tensor; // [R, D] mid + gelu·fc2ᵀ + b, the residual stream leaving the block
}

/** The step that differs between callers: records attn ([R, D]) from qkv ([R, 3D]). */
export type AttentionStep = (rec: Recorder, qkv: Tensor, attn: Tensor) => void;

/**
 * Records x → LN → qkv → attention → proj (+x) → LN → fc (GELU) → fc2 (+mid). The residual adds and
 * the GELU run in the matmuls' stores (matmul.wgsl.ts's epilogues): three dispatches fewer per block.
 */
export function recordBlockForward(rec: Recorder, gpu: Gpu, w: LayerTensors, a: BlockBuffers, rows: number, D: number, attention: AttentionStep): void {
  const F = 4 * D;
  recordLayerNormForward(rec, gpu, { x: a.x, weight: w.ln1w, bias: w.ln1b, out: a.ln1, stats: a.ln1Stats }, { rows, D }, LAYER_NORM_EPS);
  recordMatmul(rec, gpu, { a: a.ln1, b: w.qkvw, c: a.qkv, bias: w.qkvb }, { M: rows, K: D, N: 3 * D, layout: 'nt' });
  attention(rec, a.qkv, a.attn);
  recordMatmul(rec, gpu, { a: a.attn, b: w.projw, c: a.mid, bias: w.projb, addend: a.x }, { M: rows, K: D, N: D, layout: 'nt' });
  recordLayerNormForward(rec, gpu, { x: a.mid, weight: w.ln2w, bias: w.ln2b, out: a.ln2, stats: a.ln2Stats }, { rows, D }, LAYER_NORM_EPS);
  recordMatmul(rec, gpu, { a: a.ln2, b: w.fcw, c: a.fc, bias: w.fcb, geluOut: a.gelu }, { M: rows, K: D, N: F, layout: 'nt' });
  recordMatmul(rec, gpu, { a: a.gelu, b: w.fc2w, c: a.out, bias: w.fc2b, addend: a.mid }, { M: rows, K: F, N: D, layout: 'nt' });
}
