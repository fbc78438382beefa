// Float64 reference for causal multi-head attention, from the definition (docs/conventions.md §1):
//   S = q·kᵀ/√hd with S[t, j] masked for j > t,  P = softmax_j(S),  out = P·v
// and its backward (matrix form, per (b, h)):
//   dP = dout·vᵀ,  dS = P ⊙ (dP − rowsum(P ⊙ dP)),  dq = dS·k/√hd,  dk = dSᵀ·q/√hd,  dv = Pᵀ·dout
//
// Shape legend:  B batch · T tokens · H heads · hd = D/H
//   qkv: [B, T, 3D] · out, dout: [B, T, D] · att: [B, H, T, T] · dqkv: [B, T, 3D]

import type { AttentionShape } from './attention.ts';

/** Reads head h of part (0 = q, 1 = k, 2 = v) of token t as a [hd] vector. */
function headVector(qkv: ArrayLike<number>, shape: AttentionShape, b: number, t: number, part: number, h: number): Float64Array {
  const hd = shape.D / shape.H;
  const base = (b * shape.T + t) * 3 * shape.D + part * shape.D + h * hd;
  const x = new Float64Array(hd);
  for (let d = 0; d < hd; d++) x[d] = qkv[base + d];
  return x;
}

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

export function attentionForwardRef(qkv: ArrayLike<number>, shape: AttentionShape): { out: Float64Array; att: Float64Array } {
  const { B, T, H, D } = shape;
  const hd = D / H;
  const out = new Float64Array(B * T * D); // [B, T, D]
  const att = new Float64Array(B * H * T * T); // [B, H, T, T]
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < H; h++) {
      for (let t = 0; t < T; t++) {
        const q = headVector(qkv, shape, b, t, 0, h);
        const scores = new Float64Array(t + 1);
        for (let j = 0; j <= t; j++) scores[j] = dot(q, headVector(qkv, shape, b, j, 1, h)) / Math.sqrt(hd);
        const max = Math.max(...scores);
        let z = 0;
        for (let j = 0; j <= t; j++) z += Math.exp(scores[j] - max);
        const row = ((b * H + h) * T + t) * T;
        for (let j = 0; j <= t; j++) {
          const pr = Math.exp(scores[j] - max) / z;
          att[row + j] = pr;
          const v = headVector(qkv, shape, b, j, 2, h);
          for (let d = 0; d < hd; d++) out[(b * T + t) * D + h * hd + d] += pr * v[d];
        }
      }
    }
  }
  return { out, att };
}

export function attentionBackwardRef(qkv: ArrayLike<number>, att: ArrayLike<number>, dout: ArrayLike<number>, shape: AttentionShape): Float64Array {
  const { B, T, H, D } = shape;
  const hd = D / H;
  const scale = 1 / Math.sqrt(hd);
  const dqkv = new Float64Array(B * T * 3 * D); // [B, T, 3D]
  const at = (b: number, h: number, t: number, j: number) => att[((b * H + h) * T + t) * T + j];
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < H; h++) {
      // dS for this (b, h): [T, T], zero above the diagonal.
      const dS = new Float64Array(T * T);
      for (let t = 0; t < T; t++) {
        const g = new Float64Array(hd);
        for (let d = 0; d < hd; d++) g[d] = dout[(b * T + t) * D + h * hd + d];
        const dP = new Float64Array(T);
        let rowsum = 0;
        for (let j = 0; j <= t; j++) {
          dP[j] = dot(g, headVector(qkv, shape, b, j, 2, h));
          rowsum += at(b, h, t, j) * dP[j];
        }
        for (let j = 0; j <= t; j++) dS[t * T + j] = at(b, h, t, j) * (dP[j] - rowsum);
      }
      for (let t = 0; t < T; t++) {
        for (let j = 0; j <= t; j++) {
          const q = headVector(qkv, shape, b, t, 0, h);
          const k = headVector(qkv, shape, b, j, 1, h);
          for (let d = 0; d < hd; d++) {
            dqkv[(b * T + t) * 3 * D + h * hd + d] += dS[t * T + j] * k[d] * scale;
            dqkv[(b * T + j) * 3 * D + D + h * hd + d] += dS[t * T + j] * q[d] * scale;
            dqkv[(b * T + j) * 3 * D + 2 * D + h * hd + d] += at(b, h, t, j) * dout[(b * T + t) * D + h * hd + d];
          }
        }
      }
    }
  }
  return dqkv;
}
