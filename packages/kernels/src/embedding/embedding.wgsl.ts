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
// row v of dwte, scans all B·T token ids and adds each matching position's dx row into its own row,
// in position order; one invocation owns each (t, d) of dwpe and adds over b in order. Cost of dwte:
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

export const EMBEDDING_BACKWARD_WTE_WGSL = /* wgsl */ `
${PARAMS}
@group(0) @binding(0) var<storage, read> tokens: array<u32>;
@group(0) @binding(1) var<storage, read> dx: array<f32>;
@group(0) @binding(2) var<storage, read_write> dwte: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let v = gid.x;
  if (v >= p.V) { return; }
  for (var bt = 0u; bt < p.B * p.T; bt++) {
    if (tokens[bt] == v) {
      for (var d = 0u; d < p.D; d++) { dwte[v * p.D + d] += dx[bt * p.D + d]; }
    }
  }
}
`;

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
