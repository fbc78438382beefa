// Residual connections: the forward adds two streams, the backward adds a branch's gradient into
// the residual gradient stream in place.
//
// Shapes:  n elements (B·T·D)
//   add:         out[n] = a[n] + b[n]
//   accumulate:  a[n] += b[n]

import { flatIndexWgsl } from '../gpu/grid.ts';

const ENTRY = `struct Params { n: u32 }
${flatIndexWgsl(64)}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flatIndex(gid, nwg);
  if (i >= p.n) { return; }`;

export const RESIDUAL_ADD_WGSL = /* wgsl */ `
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;
${ENTRY}
  out[i] = a[i] + b[i];
}
`;

export const RESIDUAL_ACCUMULATE_WGSL = /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;
${ENTRY}
  a[i] += b[i];
}
`;
