// LayerNorm over the last axis, forward beside backward (llm.c's layernorm_forward/_backward).
//
// Shapes:  R rows (B·T) · D features
//   x, out, dout, dinp:  [R, D] f32
//   weight, bias:        [D] f32        dweight, dbias: [D] f32
//   stats:               [2, R] f32     stats[0, r] = mean, stats[1, r] = rstd (one buffer, so the
//                                       backward stays within 8 storage bindings)
//
// Forward, per row:   mean = Σ_d x / D,   rstd = 1 / √(Σ_d (x − mean)² / D + ε)
//                     norm = (x − mean)·rstd,   out = norm·weight + bias
// Backward, per row:  g = weight·dout
//                     dinp += rstd·(g − mean_d(g) − norm·mean_d(g·norm))
// Parameters:         dweight += Σ_r dout·norm,   dbias += Σ_r dout
//
// Gradients are added to (dinp is the residual stream's gradient in a pre-LN GPT; dweight/dbias are
// zeroed once per step), as in llm.c. The variance is two-pass (subtract the mean first) so rows
// with a large offset keep their precision. Forward and dinp use one invocation per row, looping
// over D with no barriers (SwiftShader, DESIGN.md); the parameter gradients reduce over rows with
// the deterministic column tree (util/column-tree.wgsl.ts) in a second dispatch.

import { flatIndexWgsl } from '../gpu/grid.ts';
import { columnTreeWgsl, TREE_COLUMNS, TREE_LANES } from '../util/column-tree.wgsl.ts';

const PARAMS = 'struct Params { rows: u32, D: u32, eps: f32 }';
const ROW_ENTRY = `${flatIndexWgsl(64)}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let r = flatIndex(gid, nwg);
  if (r >= p.rows) { return; }
  let base = r * p.D;`;

export const LAYERNORM_FORWARD_WGSL = /* wgsl */ `
${PARAMS}
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> weight: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<storage, read_write> stats: array<f32>;
@group(0) @binding(5) var<uniform> p: Params;

${ROW_ENTRY}
  var sum = 0.0;
  for (var d = 0u; d < p.D; d++) { sum += x[base + d]; }
  let mean = sum / f32(p.D);
  var squares = 0.0;
  for (var d = 0u; d < p.D; d++) {
    let centred = x[base + d] - mean;
    squares += centred * centred;
  }
  let rstd = inverseSqrt(squares / f32(p.D) + p.eps);
  for (var d = 0u; d < p.D; d++) {
    out[base + d] = (x[base + d] - mean) * rstd * weight[d] + bias[d];
  }
  stats[r] = mean;
  stats[p.rows + r] = rstd;
}
`;

export const LAYERNORM_BACKWARD_INPUT_WGSL = /* wgsl */ `
${PARAMS}
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> weight: array<f32>;
@group(0) @binding(2) var<storage, read> dout: array<f32>;
@group(0) @binding(3) var<storage, read> stats: array<f32>;
@group(0) @binding(4) var<storage, read_write> dinp: array<f32>;
@group(0) @binding(5) var<uniform> p: Params;

${ROW_ENTRY}
  let mean = stats[r];
  let rstd = stats[p.rows + r];
  var gSum = 0.0;
  var gNormSum = 0.0;
  for (var d = 0u; d < p.D; d++) {
    let g = weight[d] * dout[base + d];
    gSum += g;
    gNormSum += g * (x[base + d] - mean) * rstd;
  }
  let gMean = gSum / f32(p.D);
  let gNormMean = gNormSum / f32(p.D);
  for (var d = 0u; d < p.D; d++) {
    let norm = (x[base + d] - mean) * rstd;
    dinp[base + d] += rstd * (weight[d] * dout[base + d] - gMean - norm * gNormMean);
  }
}
`;

export const LAYERNORM_BACKWARD_PARAMS_WGSL = /* wgsl */ `
${PARAMS}
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> dout: array<f32>;
@group(0) @binding(2) var<storage, read> stats: array<f32>;
@group(0) @binding(3) var<storage, read_write> dweight: array<f32>;
@group(0) @binding(4) var<storage, read_write> dbias: array<f32>;
@group(0) @binding(5) var<uniform> p: Params;
var<workgroup> weightPartial: array<f32, ${TREE_LANES * TREE_COLUMNS}>;
var<workgroup> biasPartial: array<f32, ${TREE_LANES * TREE_COLUMNS}>;

@compute @workgroup_size(${TREE_COLUMNS}, ${TREE_LANES})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  let col = wid.x * ${TREE_COLUMNS}u + lid.x;
  // Lanes past the last column read a valid column and discard it: every lane must reach the barriers.
  let d = min(col, p.D - 1u);
  var weightSum = 0.0;
  var biasSum = 0.0;
  for (var r = lid.y; r < p.rows; r += ${TREE_LANES}u) {
    let g = dout[r * p.D + d];
    weightSum += g * (x[r * p.D + d] - stats[r]) * stats[p.rows + r];
    biasSum += g;
  }
${columnTreeWgsl(['weightPartial', 'biasPartial'], ['weightSum', 'biasSum'])}
  if (lid.y == 0u && col < p.D) {
    dweight[col] += weightPartial[lid.x];
    dbias[col] += biasPartial[lid.x];
  }
}
`;
