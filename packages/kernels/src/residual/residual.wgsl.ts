// Residual connections: the forward adds two streams, the backward adds a branch's gradient into
// the residual gradient stream in place.
//
// Shapes:  n elements (B·T·D)
//   add:         out[n] = a[n] + b[n]
//   accumulate:  a[n] += b[n]
//
// With n % 4 == 0 each invocation takes a vec4 (as in gelu.wgsl.ts); T is f32 or vec4f.

import { flatIndexWgsl } from '../gpu/grid.ts';

function entry(vec4: boolean): string {
  return `alias T = ${vec4 ? 'vec4f' : 'f32'};
struct Params { count: u32 }
${flatIndexWgsl(64)}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flatIndex(gid, nwg);
  if (i >= p.count) { return; }`;
}

export function residualAddWgsl(vec4: boolean): string {
  return /* wgsl */ `
@group(0) @binding(0) var<storage, read> a: array<T>;
@group(0) @binding(1) var<storage, read> b: array<T>;
@group(0) @binding(2) var<storage, read_write> out: array<T>;
@group(0) @binding(3) var<uniform> p: Params;
${entry(vec4)}
  out[i] = a[i] + b[i];
}
`;
}

export function residualAccumulateWgsl(vec4: boolean): string {
  return /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> a: array<T>;
@group(0) @binding(1) var<storage, read> b: array<T>;
@group(0) @binding(2) var<uniform> p: Params;
${entry(vec4)}
  a[i] += b[i];
}
`;
}
