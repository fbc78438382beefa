// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011; Random123),
// the counter-based generator of cuRAND, PyTorch and JAX, in WGSL. philox.ts holds the identical
// TypeScript version; the two agree word for word (philox.test.ts, thousands of counters).
//
// A block is a pure function of a 128-bit counter and a 64-bit key: no state to carry between
// dispatches or to save in checkpoints beyond (seed, counter). Only 32-bit integer ops: the high half
// of the 32×32 product is built from 16-bit halves (Hacker's Delight §8-2), exact in u32.

import { flatIndexWgsl } from '../gpu/grid.ts';

export const PHILOX_WGSL = /* wgsl */ `
fn mulhi32(a: u32, b: u32) -> u32 {
  let a0 = a & 0xffffu;
  let a1 = a >> 16u;
  let b0 = b & 0xffffu;
  let b1 = b >> 16u;
  let t = a1 * b0 + ((a0 * b0) >> 16u);
  let w1 = a0 * b1 + (t & 0xffffu);
  return a1 * b1 + (t >> 16u) + (w1 >> 16u);
}

fn philox4x32(counter: vec4u, key: vec2u) -> vec4u {
  var c = counter;
  var k = key;
  for (var r = 0u; r < 10u; r++) {
    if (r > 0u) { k += vec2u(0x9e3779b9u, 0xbb67ae85u); }
    let lo0 = 0xd2511f53u * c.x;
    let hi0 = mulhi32(0xd2511f53u, c.x);
    let lo1 = 0xcd9e8d57u * c.z;
    let hi1 = mulhi32(0xcd9e8d57u, c.z);
    c = vec4u(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
  }
  return c;
}

// A uniform in [0, 1) from the top 24 bits: every value is an exact f32, so WGSL and TypeScript agree.
fn uniformFromBits(x: u32) -> f32 {
  return f32(x >> 8u) * (1.0 / 16777216.0);
}
`;

export const PHILOX_WORKGROUP = 64;

/** Test and utility kernel: out[i] = philox4x32(counters[i], key). */
export function philoxBlocksWgsl(): string {
  return /* wgsl */ `${PHILOX_WGSL}
struct Params { n: u32, key0: u32, key1: u32 }
@group(0) @binding(0) var<storage, read> counters: array<vec4u>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4u>;
@group(0) @binding(2) var<uniform> p: Params;
${flatIndexWgsl(PHILOX_WORKGROUP)}
@compute @workgroup_size(${PHILOX_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flatIndex(gid, nwg);
  if (i >= p.n) { return; }
  out[i] = philox4x32(counters[i], vec2u(p.key0, p.key1));
}
`;
}
