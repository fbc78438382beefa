// Float64 references for the KV cache, from the definitions in kv-cache.wgsl.ts.
//
// Shape legend:  B batch · S new tokens · H heads · hd = D/H · Tmax cache length
//   qkv: [B, S, 3D] (decode: S = 1) · pos: [B] · kCache, vCache: [B, H, Tmax, hd] · out: [B, D]

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

/** out[b, h] = Σ_{j ≤ pos[b]} softmax_j(q·k_j/√hd) v_j. */
export function decodeAttentionRef(
  qkv: ArrayLike<number>,
  kCache: ArrayLike<number>,
  vCache: ArrayLike<number>,
  pos: ArrayLike<number>,
  shape: KvCacheShape,
): Float64Array {
  const { B, H, D, Tmax } = shape;
  const hd = D / H;
  const out = new Float64Array(B * D);
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < H; h++) {
      const n = Math.min(pos[b] + 1, Tmax);
      const scores: number[] = [];
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let d = 0; d < hd; d++) s += qkv[b * 3 * D + h * hd + d] * kCache[((b * H + h) * Tmax + j) * hd + d];
        scores.push(s / Math.sqrt(hd));
      }
      const max = Math.max(...scores);
      const z = scores.reduce((acc, s) => acc + Math.exp(s - max), 0);
      for (let j = 0; j < n; j++) {
        const pr = Math.exp(scores[j] - max) / z;
        for (let d = 0; d < hd; d++) out[b * D + h * hd + d] += pr * vCache[((b * H + h) * Tmax + j) * hd + d];
      }
    }
  }
  return out;
}
