// Masked whitening in f32 without the one-pass E[x²] − E[x]² residue (NeMo-RL #1518/#4161: ~1e-4
// residue for identical rewards, turned into ~1000× advantages by a small ε). Three passes:
//   sums1: Σ m·x, Σ m              → μ
//   sums2: Σ m·d, Σ m·d², d = x − μ → σ² = (Σd² − (Σd)²/n)/(n − 1) (corrected two-pass), μ' = μ + Σd/n
//   apply: out = m·(d − Σd/n)·inverseSqrt(σ² + ε)
// For identical values d is the same tiny rounding residue everywhere and d − Σd/n is exactly 0.
//
// Shapes: values [N] f32, mask [N] u32, partials [2, P] f32, stats [6] f32
// (Σmx, n, Σd, Σd², then mean and variance written by `apply` for logging), out [N] f32.

import { partialSumsWgsl, REDUCE_ITEMS, REDUCE_WORKGROUP } from '../common/reduce.wgsl.ts';

const BINDINGS = /* wgsl */ `
struct Params { N: u32, eps: f32 }
@group(0) @binding(0) var<storage, read> values: array<f32>;
@group(0) @binding(1) var<storage, read> mask: array<u32>;
@group(0) @binding(4) var<uniform> p: Params;
`;

export function whitenSumsWgsl(pass: 1 | 2): string {
  const terms = pass === 1 ? 'acc[0] += x; acc[1] += 1.0;' : 'let d = x - mu; acc[0] += d; acc[1] += d * d;';
  return /* wgsl */ `${BINDINGS}
@group(0) @binding(2) var<storage, read> stats: array<f32>;
@group(0) @binding(3) var<storage, read_write> partials: array<f32>;
${partialSumsWgsl(2)}
@compute @workgroup_size(${REDUCE_WORKGROUP})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  var acc: array<f32, 2>;
  let mu = stats[0] / max(stats[1], 1.0);
  for (var c = 0u; c < ITEMS; c++) {
    let i = elementIndex(wid, nwg, lid, c);
    if (i >= p.N) { break; }
    if (mask[i] == 0u) { continue; }
    let x = values[i];
    ${terms}
  }
  _ = mu;
  writePartials(&acc, wid, nwg, lid);
}
`;
}

export function whitenApplyWgsl(): string {
  return /* wgsl */ `${BINDINGS}
@group(0) @binding(2) var<storage, read_write> stats: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(${REDUCE_WORKGROUP})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let n = stats[1];
  let mu = stats[0] / max(n, 1.0);
  let shift = stats[2] / max(n, 1.0);
  var variance = 0.0;
  if (n > 1.0) { variance = max(0.0, (stats[3] - stats[2] * shift) / (n - 1.0)); }
  let scale = inverseSqrt(variance + p.eps);
  let first = (wid.x + wid.y * nwg.x) * ${REDUCE_WORKGROUP * REDUCE_ITEMS}u + lid;
  if (first == 0u) {
    stats[4] = mu + shift;
    stats[5] = variance;
  }
  for (var c = 0u; c < ${REDUCE_ITEMS}u; c++) {
    let i = first + c * ${REDUCE_WORKGROUP}u;
    if (i >= p.N) { break; }
    out[i] = select(0.0, ((values[i] - mu) - shift) * scale, mask[i] != 0u);
  }
}
`;
}
