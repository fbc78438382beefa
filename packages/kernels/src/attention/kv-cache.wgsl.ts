// KV-cache attention for generation: write new tokens' k and v into the cache, and attend each new
// query over its sequence's cached keys.
//
// Shape legend:  B batch · S new tokens per sequence · H heads · hd head width · D = H·hd · Tmax cache length
//   qkv:    [B, S, 3D] f32  the new tokens' q | k | v rows (S = 1 when decoding, a chunk of the context when prefilling)
//   pos:    write: [B] u32, the position of sequence b's first new token;
//           decode: [B, S] u32, the position of each new token (its query attends to 0 … pos)
//   kCache: [B, H, Tmax, hd] f32 (vCache the same)
//   out:    [B, S, D] f32       attention output, heads concatenated
//
// Write:   kCache[b, h, pos[b] + s, :] = k of qkv[b, s] (head h), the same for v; positions ≥ Tmax are
//          skipped, so a full cache is never written past its end (into the next head's rows).
// Decode:  out[b, s] = Σ_{j ≤ pos[b, s]} softmax_j(q_bs · k_j/√hd) v_j  (the new token at pos attends
//          to itself and everything before it; write its k, v first). S = 1 is a decode step; S > 1
//          prefills a chunk of a context onto the cache in one pass (model/generate.ts), each query
//          computing exactly what the decode step at its position would.
//
// Layout [B, H, Tmax, hd] keeps one head's keys contiguous, so the decode loop walks memory in order;
// the write is the only place that pays the transpose from the token-major qkv, once per token.
// Decode is one invocation per (b, h) with an online softmax (running max and sum rescaled as keys
// arrive), no workgroup memory: B·H invocations of pos·hd work each is tiny at T ≤ 256, and a
// split-over-keys variant would need a second reduction dispatch.

import { flatIndexWgsl } from '../gpu/grid.ts';
import { HeadVectors } from './attention.wgsl.ts';

export const KV_WORKGROUP = 64;

/** One invocation per (b, s, column c of D): copies k and v of column c. */
export function kvCacheWriteWgsl(): string {
  return /* wgsl */ `
struct Params { B: u32, S: u32, H: u32, hd: u32, Tmax: u32 }
@group(0) @binding(0) var<storage, read> qkv: array<f32>;
@group(0) @binding(1) var<storage, read> pos: array<u32>;
@group(0) @binding(2) var<storage, read_write> kCache: array<f32>;
@group(0) @binding(3) var<storage, read_write> vCache: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;
${flatIndexWgsl(KV_WORKGROUP)}
@compute @workgroup_size(${KV_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flatIndex(gid, nwg);
  let D = p.H * p.hd;
  if (i >= p.B * p.S * D) { return; }
  let c = i % D;
  let bs = i / D;
  let s = bs % p.S;
  let b = bs / p.S;
  let t = pos[b] + s;
  if (t >= p.Tmax) { return; }
  let h = c / p.hd;
  let dst = ((b * p.H + h) * p.Tmax + t) * p.hd + c % p.hd;
  let src = bs * 3u * D + D + c;
  kCache[dst] = qkv[src];
  vCache[dst] = qkv[src + D];
}
`;
}

/** One invocation per (b, s, h): new token s's attention over its sequence's cached positions 0 … pos[b, s]. */
export function decodeAttentionWgsl(hd: number): string {
  const hv = new HeadVectors(hd);
  return /* wgsl */ `
struct Params { B: u32, S: u32, H: u32, Tmax: u32, scale: f32 }
const HD: u32 = ${hd}u;
@group(0) @binding(0) var<storage, read> qkv: array<${hv.element}>;
@group(0) @binding(1) var<storage, read> kCache: array<${hv.element}>;
@group(0) @binding(2) var<storage, read> vCache: array<${hv.element}>;
@group(0) @binding(3) var<storage, read> pos: array<u32>;
@group(0) @binding(4) var<storage, read_write> out: array<${hv.element}>;
@group(0) @binding(5) var<uniform> p: Params;
${flatIndexWgsl(KV_WORKGROUP)}
@compute @workgroup_size(${KV_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let row = flatIndex(gid, nwg);
  if (row >= p.B * p.S * p.H) { return; }
  let h = row % p.H;
  let bs = row / p.H;
  let b = bs / p.S;
  let D = p.H * HD;
  let n = min(pos[bs] + 1u, p.Tmax);
  let qb = (bs * 3u * D + h * HD) / ${hv.unit};
${hv.each((i) => `let q${i} = ${hv.load('qkv', 'qb', i)} * p.scale;`)}
  let c0 = (b * p.H + h) * p.Tmax * HD / ${hv.unit};
  let step = HD / ${hv.unit};
  // Key 0 starts the running max m and sum l, so no sentinel is needed.
  var m = ${hv.dot('q', 'kCache', 'c0')};
  var l = 1.0;
${hv.each((i) => `var acc${i} = ${hv.load('vCache', 'c0', i)};`)}
  for (var j = 1u; j < n; j++) {
    let c = c0 + j * step;
    let s = ${hv.dot('q', 'kCache', 'c')};
    if (s > m) {
      let r = exp(m - s);
      l *= r;
${hv.each((i) => `acc${i} *= r;`, '      ')}
      m = s;
    }
    let e = exp(s - m);
    l += e;
${hv.each((i) => `acc${i} += e * ${hv.load('vCache', 'c', i)};`, '    ')}
  }
  let inv = 1.0 / l;
  let o = (bs * D + h * HD) / ${hv.unit};
${hv.each((i) => hv.store('out', 'o', i, `acc${i} * inv`))}
}
`;
}
