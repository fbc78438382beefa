// Float64 references for the KV cache, from the definitions in kv-cache.wgsl.ts.
//
// Shape legend:  B batch · S new tokens · H heads · hd = D/H · Tmax cache length
//   qkv: [B, S, 3D] (decode: S = 1) · pos: [B] (write), [B, S] (attention) · kCache, vCache: [B, H, Tmax, hd] · out: [B, S, D]

import type { KvCacheShape } from './kv-cache.ts';

/** Copies of the caches with the new tokens' k, v written at pos[b] + s (positions ≥ Tmax dropped). */
export function kvCacheWriteRef(
  qkv: ArrayLike<number>,
  pos: ArrayLike<number>,
  kCache: ArrayLike<number>,
  vCache: ArrayLike<number>,
  shape: KvCacheShape,
  S = 1,
): { kCache: Float64Array; vCache: Float64Array } {
  const { B, H, D, Tmax } = shape;
  const hd = D / H;
  const k = Float64Array.from(kCache);
  const v = Float64Array.from(vCache);
  for (let b = 0; b < B; b++) {
    for (let s = 0; s < S; s++) {
      const t = pos[b] + s;
      if (t >= Tmax) continue;
      for (let h = 0; h < H; h++) {
        for (let d = 0; d < hd; d++) {
          const row = (b * S + s) * 3 * D;
          k[((b * H + h) * Tmax + t) * hd + d] = qkv[row + D + h * hd + d];
          v[((b * H + h) * Tmax + t) * hd + d] = qkv[row + 2 * D + h * hd + d];
        }
      }
    }
  }
  return { kCache: k, vCache: v };
}

/** out[b, s, h] = Σ_{j ≤ pos[b, s]} softmax_j(q_bs·k_j/√hd) v_j over sequence b's cache (S = 1: a decode step). */
export function decodeAttentionRef(
  qkv: ArrayLike<number>,
  kCache: ArrayLike<number>,
  vCache: ArrayLike<number>,
  pos: ArrayLike<number>,
  shape: KvCacheShape,
  S = 1,
): Float64Array {
  const { B, H, D, Tmax } = shape;
  const hd = D / H;
  const out = new Float64Array(B * S * D);
  for (let bs = 0; bs < B * S; bs++) {
    const b = Math.floor(bs / S);
    for (let h = 0; h < H; h++) {
      const n = Math.min(pos[bs] + 1, Tmax);
      const scores: number[] = [];
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let d = 0; d < hd; d++) s += qkv[bs * 3 * D + h * hd + d] * kCache[((b * H + h) * Tmax + j) * hd + d];
        scores.push(s / Math.sqrt(hd));
      }
      const max = Math.max(...scores);
      const z = scores.reduce((acc, s) => acc + Math.exp(s - max), 0);
      for (let j = 0; j < n; j++) {
        const pr = Math.exp(scores[j] - max) / z;
        for (let d = 0; d < hd; d++) out[bs * D + h * hd + d] += pr * vCache[((b * H + h) * Tmax + j) * hd + d];
      }
    }
  }
  return out;
}
