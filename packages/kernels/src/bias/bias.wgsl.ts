// Bias gradient of a Linear layer: the column sums of the output gradient, added to dbias.
//
// Shapes:  R rows (B·T) · N columns (output features)
//   dout:  [R, N] f32
//   dbias: [N] f32          dbias[n] += Σ_r dout[r, n]
//
// One invocation per column (per four columns with vec4 loads when N % 4 == 0) adds its rows in
// order: deterministic, no atomics, no barriers. Measured on SwiftShader (2 cores, loaded), against
// a 16×16 workgroup that split rows over lanes and added them with a barrier tree:
//   256 × 256: tree 5.7 ms, column loop 0.41 ms, vec4 column loop 0.17 ms
//   4096 × 256: tree 21.5 ms, column loop 13.5 ms, vec4 column loop 7.2 ms
// Barriers cost more than the lost parallelism. On a large GPU N/4 invocations is few; a split-rows
// pass with a scratch buffer would be the fix there.

/** `workgroup`: invocations per workgroup (gpu/column-workgroup.ts). */
export function biasBackwardWgsl(vec4: boolean, workgroup = 64): string {
  const element = vec4 ? 'vec4f' : 'f32';
  const width = vec4 ? 'p.N / 4u' : 'p.N';
  return /* wgsl */ `
struct Params { rows: u32, N: u32 }
@group(0) @binding(0) var<storage, read> dout: array<${element}>;
@group(0) @binding(1) var<storage, read_write> dbias: array<${element}>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(${workgroup})
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let width = ${width};
  let n = gid.x;
  if (n >= width) { return; }
  var sum = ${element}(0.0);
  for (var r = 0u; r < p.rows; r++) {
    sum += dout[r * width + n];
  }
  dbias[n] += sum;
}
`;
}
