// Span-level KTO in three dispatches (math: span-kto.ref.ts):
//   sums — one invocation per span: (r_k, Σ ℓ) over its tokens;
//   loss — one workgroup: tree sums of r_k, span counts and neutral Σℓ; the EMA update of z_ref from
//          the previous value in `zPrev` (kept on the GPU, so no readback is needed between steps);
//          then per span ℓ(S_k) and dL/dr_k (or −1/N_neutral for neutral spans);
//   grad — one invocation per token: grad = perSpan[tokenSpan].
//
// Shapes: logp, refLogp [B, T] f32; spans [S, 3] u32 (start, end, polarity + 1); tokenSpan [B, T] i32;
// spanSums [S, 2] f32; zPrev [1] f32; perSpan [S] f32; stats [6] f32
// (loss, L_pref, L_neutral, z_ref, preference spans, neutral tokens); grad [B, T] f32.

import { SIGMOID_WGSL } from './kto.wgsl.ts';

export const SPAN_WORKGROUP = 64;
export const SPAN_LOSS_WORKGROUP = 256;

export function spanSumsWgsl(): string {
  return /* wgsl */ `
struct Params { S: u32 }
@group(0) @binding(0) var<storage, read> logp: array<f32>;
@group(0) @binding(1) var<storage, read> refLogp: array<f32>;
@group(0) @binding(2) var<storage, read> spans: array<u32>;
@group(0) @binding(3) var<storage, read_write> spanSums: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

@compute @workgroup_size(${SPAN_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let k = gid.x + gid.y * nwg.x * ${SPAN_WORKGROUP}u;
  if (k >= p.S) { return; }
  var r = 0.0;
  var l = 0.0;
  for (var i = spans[3u * k]; i < spans[3u * k + 1u]; i++) {
    r += logp[i] - refLogp[i];
    l += logp[i];
  }
  spanSums[2u * k] = r;
  spanSums[2u * k + 1u] = l;
}
`;
}

export function spanLossWgsl(): string {
  return /* wgsl */ `
struct Params { S: u32, beta: f32, lambdaW: f32, lambdaL: f32, alpha: f32 }
@group(0) @binding(0) var<storage, read> spanSums: array<f32>;
@group(0) @binding(1) var<storage, read> spans: array<u32>;
@group(0) @binding(2) var<storage, read> zPrev: array<f32>;
@group(0) @binding(3) var<storage, read_write> perSpan: array<f32>;
@group(0) @binding(4) var<storage, read_write> stats: array<f32>;
@group(0) @binding(5) var<uniform> p: Params;
const WG = ${SPAN_LOSS_WORKGROUP}u;
var<workgroup> red: array<vec4f, ${SPAN_LOSS_WORKGROUP}>;
${SIGMOID_WGSL}
fn treeSum(lid: u32) -> vec4f {
  for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
    workgroupBarrier();
    if (lid < stride) { red[lid] += red[lid + stride]; }
  }
  workgroupBarrier();
  let total = red[0];
  workgroupBarrier();
  return total;
}

@compute @workgroup_size(${SPAN_LOSS_WORKGROUP})
fn main(@builtin(local_invocation_index) lid: u32) {
  // x: Σ r_k, y: preference spans, z: neutral tokens, w: Σ ℓ over neutral tokens
  var acc = vec4f(0.0);
  for (var k = lid; k < p.S; k += WG) {
    acc.x += spanSums[2u * k];
    if (spans[3u * k + 2u] == 1u) {
      acc.z += f32(spans[3u * k + 1u] - spans[3u * k]);
      acc.w += spanSums[2u * k + 1u];
    } else {
      acc.y += 1.0;
    }
  }
  red[lid] = acc;
  let totals = treeSum(lid);
  var z = zPrev[0];
  if (p.S > 0u) { z = p.alpha * z + (1.0 - p.alpha) * totals.x / f32(p.S); }
  let nPref = max(totals.y, 1.0);
  let nNeutral = max(totals.z, 1.0);
  var pref = 0.0;
  for (var k = lid; k < p.S; k += WG) {
    let code = spans[3u * k + 2u];
    let a = spanSums[2u * k] - z;
    if (code == 2u) {
      let s = sigmoid(p.beta * a);
      pref += -p.lambdaW * s;
      perSpan[k] = -p.lambdaW * p.beta * s * (1.0 - s) / nPref;
    } else if (code == 0u) {
      let s = sigmoid(-p.beta * a);
      pref += -p.lambdaL * s;
      perSpan[k] = p.lambdaL * p.beta * s * (1.0 - s) / nPref;
    } else {
      perSpan[k] = -1.0 / nNeutral;
    }
  }
  red[lid] = vec4f(pref, 0.0, 0.0, 0.0);
  let prefLoss = treeSum(lid).x / nPref;
  if (lid == 0u) {
    let neutralLoss = -totals.w / nNeutral;
    stats[0] = prefLoss + neutralLoss;
    stats[1] = prefLoss;
    stats[2] = neutralLoss;
    stats[3] = z;
    stats[4] = totals.y;
    stats[5] = totals.z;
  }
}
`;
}

export function spanGradWgsl(): string {
  return /* wgsl */ `
struct Params { N: u32 }
@group(0) @binding(0) var<storage, read> tokenSpan: array<i32>;
@group(0) @binding(1) var<storage, read> perSpan: array<f32>;
@group(0) @binding(2) var<storage, read_write> grad: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(${SPAN_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * ${SPAN_WORKGROUP}u;
  if (i >= p.N) { return; }
  let k = tokenSpan[i];
  grad[i] = select(0.0, perSpan[max(k, 0)], k >= 0);
}
`;
}
