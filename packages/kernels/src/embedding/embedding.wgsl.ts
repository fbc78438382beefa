// Token + position embedding, forward beside backward.
//
// Shapes:  B batch · T tokens (≤ contextLength) · V vocab · D width
//   tokens: [B, T] u32
//   wte:    [V, D] f32                 dwte: [V, D] f32
//   wpe:    [contextLength, D] f32     dwpe: [contextLength, D] f32 (rows ≥ T untouched)
//   x, dx:  [B, T, D] f32
//
// Forward:   x[b, t, :] = wte[tokens[b, t], :] + wpe[t, :]
// Backward:  dwte[v, :] += Σ_{(b,t): tokens[b,t] = v} dx[b, t, :]
//            dwpe[t, :] += Σ_b dx[b, t, :]
//
// Token ids ≥ V are masked, not clamped: they read a zero token embedding (x = wpe[t]) and add to
// no row of dwte. A clamp would silently train row V−1 on padding; a mask lets an out-of-range id
// (e.g. 0xFFFFFFFF) serve as padding and never reads past wte.
//
// The backward is deterministic without float atomics (WGSL has none): one invocation owns each
// (v, column) of dwte, scans all B·T token ids and adds each matching position's dx into it, in
// position order; one invocation owns each (t, d) of dwpe and adds over b in order. Cost of dwte:
// V·B·T id reads plus B·T·D adds, e.g. V = 128, B·T = 1024, D = 64: 131k reads, 65k adds — fine for
// character vocabularies (V ≤ 128) but only V invocations of parallelism; a large vocabulary wants a
// sorted (token → positions) index instead. Measured on SwiftShader (loaded), B·T = 256, V = 96,
// D = 64: 1.4 ms, against 27 ms for one invocation per (v, d) each scanning every id.

import { flatIndexWgsl } from '../gpu/grid.ts';

const PARAMS = 'struct Params { B: u32, T: u32, D: u32, V: u32 }';
const entry = (count: string) => `${flatIndexWgsl(64)}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flatIndex(gid, nwg);
  if (i >= ${count}) { return; }`;

export const EMBEDDING_FORWARD_WGSL = /* wgsl */ `
${PARAMS}
@group(0) @binding(0) var<storage, read> tokens: array<u32>;
@group(0) @binding(1) var<storage, read> wte: array<f32>;
@group(0) @binding(2) var<storage, read> wpe: array<f32>;
@group(0) @binding(3) var<storage, read_write> x: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

${entry('p.B * p.T * p.D')}
  let bt = i / p.D;
  let d = i % p.D;
  let t = bt % p.T;
  let token = tokens[bt];
  // Masked ids read row 0 (always valid when V ≥ 1) and multiply it by zero.
  let tokenPart = select(0.0, wte[min(token, p.V - 1u) * p.D + d], token < p.V);
  x[i] = tokenPart + wpe[t * p.D + d];
}
`;

/**
 * dwte: one invocation per (v, column), a column being four features (vec4, D % 4 == 0) or one; it
 * scans every token id and adds the matching positions' dx in position order, so the sums are the
 * same whatever the column width. `workgroup` invocations per workgroup (gpu/column-workgroup.ts).
 * With one invocation per row v (V = 13: one workgroup on one core, every lane's D loop running
 * under the others' masks) it took 0.34–0.40 ms of a 25 ms tiny-GPT step on SwiftShader.
 */
export function embeddingBackwardWteWgsl(vec4: boolean, workgroup = 64): string {
  const T = vec4 ? 'vec4f' : 'f32';
  return /* wgsl */ `
${PARAMS}
@group(0) @binding(0) var<storage, read> tokens: array<u32>;
@group(0) @binding(1) var<storage, read> dx: array<${T}>;
@group(0) @binding(2) var<storage, read_write> dwte: array<${T}>;
@group(0) @binding(3) var<uniform> p: Params;

${flatIndexWgsl(workgroup)}
@compute @workgroup_size(${workgroup})
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flatIndex(gid, nwg);
  let columns = p.D${vec4 ? ' / 4u' : ''};
  let v = i / columns;
  let c = i % columns;
  if (v >= p.V) { return; }
  var sum = dwte[v * columns + c];
  for (var bt = 0u; bt < p.B * p.T; bt++) {
    if (tokens[bt] == v) { sum += dx[bt * columns + c]; }
  }
  dwte[v * columns + c] = sum;
}
`;
}

export const EMBEDDING_BACKWARD_WPE_WGSL = /* wgsl */ `
${PARAMS}
@group(0) @binding(0) var<storage, read> dx: array<f32>;
@group(0) @binding(1) var<storage, read_write> dwpe: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

${entry('p.T * p.D')}
  var sum = 0.0;
  for (var b = 0u; b < p.B; b++) { sum += dx[b * p.T * p.D + i]; }
  dwpe[i] += sum;
}
`;
