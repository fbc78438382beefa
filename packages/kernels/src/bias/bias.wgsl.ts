// Bias gradient of a Linear layer: the column sums of the output gradient, added to dbias.
//
// Shapes:  R rows (B·T) · N columns (output features)
//   dout:  [R, N] f32
//   dbias: [N] f32          dbias[n] += Σ_r dout[r, n]
//
// Deterministic without atomics: a workgroup owns 16 columns; its 16 row lanes each sum every 16th
// row of those columns, then a fixed tree in workgroup memory adds the 16 partial sums. Rows ≫ N is
// the usual case (R = B·T in the thousands, N = D or 4D), and this keeps 16 lanes busy per column
// with only four barriers, all after the loop (barriers are slow on SwiftShader, DESIGN.md).

import { columnTreeWgsl, TREE_COLUMNS, TREE_LANES } from '../util/column-tree.wgsl.ts';

export const BIAS_BACKWARD_WGSL = /* wgsl */ `
struct Params { rows: u32, N: u32 }
@group(0) @binding(0) var<storage, read> dout: array<f32>;
@group(0) @binding(1) var<storage, read_write> dbias: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;
var<workgroup> partial: array<f32, ${TREE_LANES * TREE_COLUMNS}>;

@compute @workgroup_size(${TREE_COLUMNS}, ${TREE_LANES})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  let col = wid.x * ${TREE_COLUMNS}u + lid.x;
  // Lanes past the last column read a valid column and discard it: every lane must reach the barriers.
  let n = min(col, p.N - 1u);
  var sum = 0.0;
  for (var r = lid.y; r < p.rows; r += ${TREE_LANES}u) {
    sum += dout[r * p.N + n];
  }
${columnTreeWgsl(['partial'], ['sum'])}
  if (lid.y == 0u && col < p.N) {
    dbias[col] += partial[lid.x];
  }
}
`;
