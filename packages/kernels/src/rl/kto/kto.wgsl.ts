// KTO in three dispatches (math: kto.ref.ts):
//   sums — one workgroup per sample: seq[b] = (r_b, kl_b), tree sums over T in workgroup memory;
//   loss — one workgroup: z0 = max(0, mean kl) by a tree, then per sample the loss and dloss/dr_b;
//   grad — one invocation per token: grad = m·dloss/dr_b.
// z0 is computed from kl_b only and nothing is written for the mismatched log-probs: no gradient
// reaches them (TRL detaches z0).
//
// Shapes: logp, refLogp, mask, klLogp, klRefLogp, klMask [B, T]; seq [B, 2] f32;
// desirable [B] u32; perSample [B, 3] f32 (r_b, L_b, dloss/dr_b); stats [2] f32 (loss, z0); grad [B, T].

export const KTO_WORKGROUP = 64;
export const KTO_LOSS_WORKGROUP = 256;

/** Numerically stable logistic function. */
export const SIGMOID_WGSL = /* wgsl */ `
fn sigmoid(x: f32) -> f32 {
  if (x >= 0.0) { return 1.0 / (1.0 + exp(-x)); }
  let e = exp(x);
  return e / (1.0 + e);
}
`;

export function ktoSumsWgsl(): string {
  return /* wgsl */ `
struct Params { B: u32, T: u32 }
@group(0) @binding(0) var<storage, read> logp: array<f32>;
@group(0) @binding(1) var<storage, read> refLogp: array<f32>;
@group(0) @binding(2) var<storage, read> mask: array<u32>;
@group(0) @binding(3) var<storage, read> klLogp: array<f32>;
@group(0) @binding(4) var<storage, read> klRefLogp: array<f32>;
@group(0) @binding(5) var<storage, read> klMask: array<u32>;
@group(0) @binding(6) var<storage, read_write> seq: array<f32>;
@group(0) @binding(7) var<uniform> p: Params;
const WG = ${KTO_WORKGROUP}u;
var<workgroup> red: array<vec2f, ${KTO_WORKGROUP}>;

@compute @workgroup_size(${KTO_WORKGROUP})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let b = wid.x + wid.y * nwg.x;
  if (b >= p.B) { return; } // uniform across the workgroup
  var s = vec2f(0.0);
  for (var t = lid; t < p.T; t += WG) {
    let i = b * p.T + t;
    if (mask[i] != 0u) { s.x += logp[i] - refLogp[i]; }
    if (klMask[i] != 0u) { s.y += klLogp[i] - klRefLogp[i]; }
  }
  red[lid] = s;
  for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
    workgroupBarrier();
    if (lid < stride) { red[lid] += red[lid + stride]; }
  }
  if (lid == 0u) {
    seq[2u * b] = red[0].x;
    seq[2u * b + 1u] = red[0].y;
  }
}
`;
}

export function ktoLossWgsl(): string {
  return /* wgsl */ `
struct Params { B: u32, beta: f32, lambdaD: f32, lambdaU: f32 }
@group(0) @binding(0) var<storage, read> seq: array<f32>;
@group(0) @binding(1) var<storage, read> desirable: array<u32>;
@group(0) @binding(2) var<storage, read_write> perSample: array<f32>;
@group(0) @binding(3) var<storage, read_write> stats: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;
const WG = ${KTO_LOSS_WORKGROUP}u;
var<workgroup> red: array<f32, ${KTO_LOSS_WORKGROUP}>;
${SIGMOID_WGSL}
fn treeSum(lid: u32) -> f32 {
  for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
    workgroupBarrier();
    if (lid < stride) { red[lid] += red[lid + stride]; }
  }
  workgroupBarrier();
  let total = red[0];
  workgroupBarrier();
  return total;
}

@compute @workgroup_size(${KTO_LOSS_WORKGROUP})
fn main(@builtin(local_invocation_index) lid: u32) {
  let n = f32(max(p.B, 1u));
  var kl = 0.0;
  for (var b = lid; b < p.B; b += WG) { kl += seq[2u * b + 1u]; }
  red[lid] = kl;
  let z0 = max(0.0, treeSum(lid) / n);
  var total = 0.0;
  for (var b = lid; b < p.B; b += WG) {
    let r = seq[2u * b];
    var l = 0.0;
    var d = 0.0;
    if (desirable[b] != 0u) {
      let s = sigmoid(p.beta * (r - z0));
      l = p.lambdaD * (1.0 - s);
      d = -p.lambdaD * p.beta * s * (1.0 - s) / n;
    } else {
      let s = sigmoid(p.beta * (z0 - r));
      l = p.lambdaU * (1.0 - s);
      d = p.lambdaU * p.beta * s * (1.0 - s) / n;
    }
    perSample[3u * b] = r;
    perSample[3u * b + 1u] = l;
    perSample[3u * b + 2u] = d;
    total += l;
  }
  red[lid] = total;
  let loss = treeSum(lid) / n;
  if (lid == 0u) {
    stats[0] = loss;
    stats[1] = z0;
  }
}
`;
}

export function ktoGradWgsl(): string {
  return /* wgsl */ `
struct Params { N: u32, T: u32 }
@group(0) @binding(0) var<storage, read> mask: array<u32>;
@group(0) @binding(1) var<storage, read> perSample: array<f32>;
@group(0) @binding(2) var<storage, read_write> grad: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(${KTO_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * ${KTO_WORKGROUP}u;
  if (i >= p.N) { return; }
  grad[i] = select(0.0, perSample[3u * (i / p.T) + 2u], mask[i] != 0u);
}
`;
}
