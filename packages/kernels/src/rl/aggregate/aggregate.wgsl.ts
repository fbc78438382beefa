// Stage 1 of a loss reduction: partials of Σ m[b,t]·scale[b]·values[b,t] (stage 2 is the shared
// final-sums kernel). Masked positions are never read, so garbage there cannot leak into the loss.
//
// Shapes: values [B, T] f32, mask [B, T] u32, scales [B] f32, partials [1, P] f32.

import { partialSumsWgsl, REDUCE_WORKGROUP } from '../common/reduce.wgsl.ts';

export function aggregateWgsl(): string {
  return /* wgsl */ `
struct Params { N: u32, T: u32 }
@group(0) @binding(0) var<storage, read> values: array<f32>;
@group(0) @binding(1) var<storage, read> mask: array<u32>;
@group(0) @binding(2) var<storage, read> scales: array<f32>;
@group(0) @binding(3) var<storage, read_write> partials: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;
${partialSumsWgsl(1)}
@compute @workgroup_size(${REDUCE_WORKGROUP})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  var acc: array<f32, 1>;
  for (var c = 0u; c < ITEMS; c++) {
    let i = elementIndex(wid, nwg, lid, c);
    if (i >= p.N) { break; }
    if (mask[i] != 0u) { acc[0] += scales[i / p.T] * values[i]; }
  }
  writePartials(&acc, wid, nwg, lid);
}
`;
}
