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
// over D with no barriers (SwiftShader, docs/design.md §5); the parameter gradients are a second dispatch
// with one invocation per feature (or four, as a vec4) adding its rows in order (deterministic; a barrier tree over rows
// was 3–14× slower on SwiftShader, see bias.wgsl.ts).

import { flatIndexWgsl } from '../gpu/grid.ts';

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

/**
 * dweight, dbias: one invocation per column, or with vec4 per four columns (D % 4 == 0: a quarter of
 * the loads, each a vec4); `workgroup` invocations per workgroup (gpu/column-workgroup.ts). Rows are
 * added in order either way, so both give the same sums.
 */
export const layerNormBackwardParamsWgsl = (workgroup = 64, vec4 = false): string => /* wgsl */ `
${PARAMS}
alias T = ${vec4 ? 'vec4f' : 'f32'};
@group(0) @binding(0) var<storage, read> x: array<T>;
@group(0) @binding(1) var<storage, read> dout: array<T>;
@group(0) @binding(2) var<storage, read> stats: array<f32>;
@group(0) @binding(3) var<storage, read_write> dweight: array<T>;
@group(0) @binding(4) var<storage, read_write> dbias: array<T>;
@group(0) @binding(5) var<uniform> p: Params;

@compute @workgroup_size(${workgroup})
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let width = p.D${vec4 ? ' / 4u' : ''};
  let d = gid.x;
  if (d >= width) { return; }
  var weightSum = T(0.0);
  var biasSum = T(0.0);
  for (var r = 0u; r < p.rows; r++) {
    let g = dout[r * width + d];
    weightSum += g * (x[r * width + d] - stats[r]) * stats[p.rows + r];
    biasSum += g;
  }
  dweight[d] += weightSum;
  dbias[d] += biasSum;
}
`;
