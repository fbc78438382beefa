// Register-blocked f32 matmul: each invocation computes a 4×4 block of C, a workgroup of 8×8
// invocations a 32×32 tile; no workgroup memory and no barriers (on SwiftShader a barrier-free
// register-blocked kernel ran ~10× faster than a shared-memory tiled one; DESIGN.md).
//
// Shapes (row-major):  C[batch, M, N] = op(A) · op(B) (+ bias[N])
//   layout 'nn': A[batch, M, K], B[batch, K, N]
//   layout 'nt': A[batch, M, K], B[batch, N, K]   (C = A·Bᵀ)
//   layout 'tn': A[batch, K, M], B[batch, K, N]   (C = Aᵀ·B)
// Rows and columns past the edge are clamped on load (reading valid memory) and skipped on store,
// so the inner loop has no branches.

export type MatmulLayout = 'nn' | 'nt' | 'tn';

export interface MatmulVariant {
  layout: MatmulLayout;
  bias: boolean;
  /** vec4 loads along K and N; needs K % 4 == 0 and N % 4 == 0 (layout 'nn' only for now). */
  vec4: boolean;
}

export const MATMUL_TILE = { rows: 32, cols: 32, workgroup: [8, 8] as const };

const HEADER = /* wgsl */ `
struct Params { M: u32, K: u32, N: u32, batch: u32 }
`;

export function matmulWgsl(variant: MatmulVariant): string {
  return variant.vec4 ? vec4Wgsl(variant) : scalarWgsl(variant);
}

function bindings(variant: MatmulVariant, element: 'f32' | 'vec4f'): string {
  const bias = variant.bias ? `@group(0) @binding(4) var<storage, read> bias: array<${element}>;` : '';
  return /* wgsl */ `
@group(0) @binding(0) var<storage, read> a: array<${element}>;
@group(0) @binding(1) var<storage, read> b: array<${element}>;
@group(0) @binding(2) var<storage, read_write> c: array<${element}>;
@group(0) @binding(3) var<uniform> p: Params;
${bias}`;
}

const range4 = [0, 1, 2, 3];

function scalarWgsl(variant: MatmulVariant): string {
  const { layout } = variant;
  // Index of A(m, k) and B(k, n) within one batch item.
  const aIndex = (m: string, k: string) => (layout === 'tn' ? `${k} * p.M + ${m}` : `${m} * p.K + ${k}`);
  const bIndex = (k: string, n: string) => (layout === 'nt' ? `${n} * p.K + ${k}` : `${k} * p.N + ${n}`);
  const loadA = range4.map((i) => `    let a${i} = a[aBase + ${aIndex(`r${i}`, 'k')}];`).join('\n');
  const loadB = `    let bv = vec4f(${range4.map((j) => `b[bBase + ${bIndex('k', `c${j}`)}]`).join(', ')});`;
  const accumulate = range4.map((i) => `    acc${i} += a${i} * bv;`).join('\n');
  const biasInit = variant.bias ? `vec4f(${range4.map((j) => `bias[c${j}]`).join(', ')})` : 'vec4f(0.0)';
  return /* wgsl */ `${HEADER}${bindings(variant, 'f32')}
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let row0 = gid.y * 4u;
  let col0 = gid.x * 4u;
  if (row0 >= p.M || col0 >= p.N) { return; }
  let aBase = gid.z * p.M * p.K;
  let bBase = gid.z * p.K * p.N;
  let cBase = gid.z * p.M * p.N;
${range4.map((i) => `  let r${i} = min(row0 + ${i}u, p.M - 1u);`).join('\n')}
${range4.map((j) => `  let c${j} = min(col0 + ${j}u, p.N - 1u);`).join('\n')}
${range4.map((i) => `  var acc${i} = ${biasInit};`).join('\n')}
  for (var k = 0u; k < p.K; k++) {
${loadA}
${loadB}
${accumulate}
  }
${range4
  .map(
    (i) => `  if (row0 + ${i}u < p.M) {
${range4.map((j) => `    if (col0 + ${j}u < p.N) { c[cBase + (row0 + ${i}u) * p.N + col0 + ${j}u] = acc${i}[${j}]; }`).join('\n')}
  }`,
  )
  .join('\n')}
}
`;
}

function vec4Wgsl(variant: MatmulVariant): string {
  if (variant.layout !== 'nn') throw new Error(`the vec4 matmul path supports layout 'nn' only, not '${variant.layout}'`);
  // A viewed as [M, K/4] vec4, B as [K, N/4] vec4, C as [M, N/4] vec4.
  const loadA = range4.map((i) => `    let a${i} = a[aBase + r${i} * K4 + k4];`).join('\n');
  const loadB = range4.map((j) => `    let b${j} = b[bBase + (k4 * 4u + ${j}u) * N4 + col];`).join('\n');
  const accumulate = range4.map((i) => `    acc${i} += a${i}.x * b0 + a${i}.y * b1 + a${i}.z * b2 + a${i}.w * b3;`).join('\n');
  const biasInit = variant.bias ? 'bias[col]' : 'vec4f(0.0)';
  return /* wgsl */ `${HEADER}${bindings(variant, 'vec4f')}
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let K4 = p.K / 4u;
  let N4 = p.N / 4u;
  let row0 = gid.y * 4u;
  let col = gid.x;
  if (row0 >= p.M || col >= N4) { return; }
  let aBase = gid.z * p.M * K4;
  let bBase = gid.z * p.K * N4;
  let cBase = gid.z * p.M * N4;
${range4.map((i) => `  let r${i} = min(row0 + ${i}u, p.M - 1u);`).join('\n')}
${range4.map((i) => `  var acc${i} = ${biasInit};`).join('\n')}
  for (var k4 = 0u; k4 < K4; k4++) {
${loadA}
${loadB}
${accumulate}
  }
${range4.map((i) => `  if (row0 + ${i}u < p.M) { c[cBase + (row0 + ${i}u) * N4 + col] = acc${i}; }`).join('\n')}
}
`;
}
