// Register-blocked f32 matmul: each invocation computes a block of C held in named vec4
// accumulators; no workgroup memory and no barriers (on SwiftShader a barrier-free register-blocked
// kernel ran ~10× faster than a shared-memory tiled one; docs/design.md §5).
//
// Shapes (row-major):  C[batch, M, N] (+)= op(A) · op(B) (+ bias[N])
//   layout 'nn': A[batch, M, K], B[batch, K, N]              (a Linear's dinp = dout · W)
//   layout 'nt': A[batch, M, K], B[batch, N, K]   C = A·Bᵀ   (a Linear's forward, W stored [out, in])
//   layout 'tn': A[batch, K, M], B[batch, K, N]   C = Aᵀ·B   (a Linear's dW = doutᵀ · inp, K = B·T)
// With `accumulate` the kernel adds to C instead of overwriting it (gradient accumulation).
//
// Epilogues fuse the elementwise kernel that would follow into the store, saving its dispatch, its
// pass over C and, in the GPT, three activation buffers per layer. On SwiftShader the training step
// timed the same with and without them (the time is in the arithmetic, not between dispatches;
// docs/experiments.md, 2026-12-04); a GPU's memory traffic is what they save:
//   addend       C = op(A)·op(B) (+ bias) + addend          the residual stream: mid = x + attn·projᵀ + b
//   gelu value   C as above, and act = gelu(C)              the MLP forward keeps both for its backward
//   gelu slope   C = (op(A)·op(B) (+ bias)) · gelu'(pre)    the MLP backward: dfc = (dh · fc2w) ⊙ gelu'(fc)
// addend, act and pre have C's shape; bindings follow bias in that order.
// And for tn, the bias gradient of the Linear whose dW this is, beside it:
//   row sums     rowSums[m] += Σ_k A[k, m]                  dbias = Σ over rows of dout, with dW = doutᵀ · inp
// added by the one invocation per row block whose columns start at 0 (so batch must be 1).
//
// vec4 paths load four consecutive floats at once, along whichever axis is contiguous:
//   nn: A along K, B and C along N          needs K % 4 == 0, N % 4 == 0
//   nt: A and B along K (dot products)      needs K % 4 == 0 (any N, so a ragged vocab still fits)
//   tn: A along M, B and C along N          needs M % 4 == 0, N % 4 == 0
// and the scalar path takes everything else. Rows and columns past the edge are clamped on load
// (reading valid memory) and skipped on store, so the inner loop has no branches.

import { geluFunctionsWgsl } from '../gelu/gelu.wgsl.ts';

export type MatmulLayout = 'nn' | 'nt' | 'tn';

export interface MatmulVariant {
  layout: MatmulLayout;
  bias: boolean;
  /** C += op(A)·op(B) instead of C = op(A)·op(B). */
  accumulate: boolean;
  /** vec4 loads; see the header for what each layout needs. */
  vec4: boolean;
  /**
   * vec4 paths: each row of A is loaded by one of the four lanes that share it and handed to the
   * others with subgroupBroadcast. Only for a device whose subgroups are four consecutive
   * invocations (SwiftShader; `Gpu.quadSubgroups`), where a load costs one scalar load per lane and
   * component and a broadcast almost nothing.
   */
  shareRows?: boolean;
  /**
   * nt vec4 path with N % 4 == 0: C (and bias, addend, act, pre) are read and written as vec4, four
   * columns a store instead of one; ragged N keeps scalar stores.
   */
  alignedColumns?: boolean;
  /** C = … + addend (a tensor of C's shape); see the header. */
  addend?: boolean;
  /** 'value': also act = gelu(C); 'slope': C = … · gelu'(pre). Not with accumulate. */
  gelu?: 'value' | 'slope';
  /** tn only: also rowSums[m] += Σ_k A[k, m]; see the header. */
  rowSums?: boolean;
}

/** How the output is split: `rows × cols` outputs per invocation, `workgroup` = [x (cols), y (rows)] invocations. */
export interface MatmulBlocking {
  rows: number;
  /** A multiple of 4: accumulators are vec4 along N. */
  cols: number;
  workgroup: readonly [number, number];
}

/**
 * The blocking each path uses, chosen with `tools/time-matmul.ts` on SwiftShader (2 cores shared
 * with other work, 2026-11-30): 8×8 outputs per invocation beat 4×4, 4×8, 8×4, 8×12, 12×8, 8×16
 * and 16×8 at 512³ and at the GPT's Linear shapes for every layout (each load feeds twice the
 * multiply-adds of 4×4 while the accumulators still fit); against the previous kernels (vec4 nn,
 * scalar nt/tn, all 4×4) it ran 1.1–6.7× faster, typically 2–3×, at the GPT's shapes in interleaved runs. 8×8
 * workgroups tied 4×4 and 8×4 ones on SwiftShader and keep 64 invocations per workgroup for real
 * GPUs. Unrolling tn's K loop by 2 or 4 did not help.
 * With A's rows shared between the four lanes of a subgroup (`shared`), 16×8 tied or beat 8×8 at
 * the default recipe's shapes (2026-12-04, shared 16×8 vs shared 8×8 vs today's 8×8: nt 1.11 vs
 * 1.31 vs 1.78 ms at 768×32×96, 1.14 vs 1.41 vs 1.74 at 768×128×32; nn 1.07 vs 1.14 vs 1.37 at
 * 768×96×32; tn 0.98 vs 1.13 vs 1.38 at 96×768×32): sixteen rows cost each lane four loads. Its
 * workgroup is one subgroup: SwiftShader runs each workgroup on one thread, and the weight
 * gradients' small outputs (96 × 32) were one 8 × 8 workgroup, one core of two; as [4, 1] the qkv
 * dW took 0.59 ms against 1.11 and the proj forward 0.62 against 0.66 (`time-matmul --recipe`,
 * the same day, after the polling fix).
 */
export const MATMUL_BLOCKING: Record<'vec4' | 'scalar' | 'shared', MatmulBlocking> = {
  vec4: { rows: 8, cols: 8, workgroup: [8, 8] },
  scalar: { rows: 8, cols: 8, workgroup: [8, 8] },
  shared: { rows: 16, cols: 8, workgroup: [4, 1] },
};

/** Output rows and columns one workgroup covers. */
export function matmulTile(blocking: MatmulBlocking): { rows: number; cols: number } {
  return { rows: blocking.rows * blocking.workgroup[1], cols: blocking.cols * blocking.workgroup[0] };
}

/**
 * Whether a vec4 variant can share A's rows under this blocking: four lanes on one row (a workgroup
 * x-size that is a multiple of 4) and rows per invocation a multiple of 4 — for tn, whose loads of A
 * hold four rows each, 8 or 16 rows (two or four lanes load).
 */
export function canShareRows(variant: Pick<MatmulVariant, 'layout' | 'vec4'>, blocking: MatmulBlocking): boolean {
  const rowsOk = variant.layout === 'tn' ? blocking.rows === 8 || blocking.rows === 16 : blocking.rows % 4 === 0;
  return variant.vec4 && rowsOk && blocking.workgroup[0] % 4 === 0;
}

function checkBlocking(variant: MatmulVariant, blocking: MatmulBlocking): void {
  const { rows, cols, workgroup } = blocking;
  if (variant.alignedColumns && !(variant.vec4 && variant.layout === 'nt')) throw new RangeError('matmul: alignedColumns is a choice of the nt vec4 path');
  const ok = (n: number, max: number) => Number.isInteger(n) && n >= 1 && n <= max;
  if (!ok(rows, 16) || !ok(cols, 16) || cols % 4 !== 0 || !ok(workgroup[0], 256) || !ok(workgroup[1], 256) || workgroup[0] * workgroup[1] > 256) {
    throw new RangeError(`matmul: blocking ${JSON.stringify(blocking)} needs rows 1–16, cols a multiple of 4 up to 16 and at most 256 invocations`);
  }
  if (variant.shareRows && !canShareRows(variant, blocking))
    throw new RangeError(
      `matmul: sharing rows of A needs a vec4 path, rows per invocation a multiple of 4 (tn: 8 or 16) and a workgroup x-size a multiple of 4 (four lanes on one row), got ${variant.layout}${variant.vec4 ? ' vec4' : ''} ${JSON.stringify(blocking)}`,
    );
  if (variant.rowSums && variant.layout !== 'tn')
    throw new RangeError(`matmul: row sums of A are a tn epilogue (the bias gradient beside dW), got ${variant.layout}`);
  if (variant.accumulate && (variant.addend || variant.gelu)) throw new RangeError('matmul: an epilogue (addend, gelu) does not combine with accumulate');
  if (variant.vec4 && variant.layout === 'tn' && rows % 4 !== 0)
    throw new RangeError(`matmul: the tn vec4 path needs rows per invocation a multiple of 4, got ${rows}`);
}

/** The blocking a variant runs with unless told otherwise. */
export function matmulBlockingFor(variant: MatmulVariant): MatmulBlocking {
  return MATMUL_BLOCKING[variant.shareRows ? 'shared' : variant.vec4 ? 'vec4' : 'scalar'];
}

export function matmulWgsl(variant: MatmulVariant, blocking: MatmulBlocking = matmulBlockingFor(variant)): string {
  checkBlocking(variant, blocking);
  if (!variant.vec4) return scalarWgsl(variant, blocking);
  if (variant.layout === 'nn') return nnVec4Wgsl(variant, blocking);
  if (variant.layout === 'nt') return ntVec4Wgsl(variant, blocking);
  return tnVec4Wgsl(variant, blocking);
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const lines = (n: number, f: (i: number) => string) => range(n).map(f).join('\n');

/**
 * The rows of A an invocation needs (R of them), clamped to the last row: `m0 … m{R−1}`, or with
 * shareRows the R/4 rows this lane loads for its subgroup, `own0 … own{R/4−1}` (lane l owns rows
 * l·R/4 … l·R/4 + R/4 − 1 of the four lanes' shared block).
 */
function rowsOfA(variant: MatmulVariant, R: number): string {
  if (!variant.shareRows) return lines(R, (i) => `  let m${i} = min(row0 + ${i}u, p.M - 1u);`);
  const Q = R / 4;
  return lines(Q, (q) => `  let own${q} = min(row0 + lane * ${Q}u + ${q}u, p.M - 1u);`);
}

/** One k step's vec4s of A, `a0 … a{R−1}`, read at `index(row)`; with shareRows, loaded by their owners and broadcast. */
function loadRowsOfA(variant: MatmulVariant, R: number, index: (row: string) => string): string {
  if (!variant.shareRows) return lines(R, (i) => `    let a${i} = a[${index(`m${i}`)}];`);
  const Q = R / 4;
  return [
    lines(Q, (q) => `    let mine${q} = a[${index(`own${q}`)}];`),
    lines(R, (i) => `    let a${i} = subgroupBroadcast(mine${i % Q}, ${Math.floor(i / Q)}u);`),
  ].join('\n');
}

/**
 * Invocations past the output's edge return at once. With shareRows a lane past the right edge may
 * still own rows its neighbours need, so a subgroup returns only as a whole: when its first lane is
 * past the edge (the four lanes share row0 and their columns grow with the lane).
 */
function skipPastEdge(variant: MatmulVariant, rowPast: string, columnPast: (invocationX: string) => string): string {
  const x = variant.shareRows ? '(gid.x - lane)' : 'gid.x';
  return `  if (${rowPast} || ${columnPast(x)}) { return; }`;
}

/** The bindings past params, in order: bias, addend, then act (gelu value) or pre (gelu slope). */
function epilogueBindings(variant: MatmulVariant, c: 'f32' | 'vec4f'): string {
  const extra: string[] = [];
  if (variant.bias) extra.push(`var<storage, read> bias: array<${c}>;`);
  if (variant.addend) extra.push(`var<storage, read> addend: array<${c}>;`);
  if (variant.gelu === 'value') extra.push(`var<storage, read_write> act: array<${c}>;`);
  if (variant.gelu === 'slope') extra.push(`var<storage, read> pre: array<${c}>;`);
  if (variant.rowSums) extra.push('var<storage, read_write> rowSums: array<f32>;');
  const declarations = extra.map((d, i) => `@group(0) @binding(${4 + i}) ${d}`);
  return [...declarations, variant.gelu ? geluFunctionsWgsl(c) : ''].join('\n');
}

/** The statement storing `value` (the block's sum for one element or vec4) at c[index], with the variant's epilogue. */
function storeStatement(variant: MatmulVariant, index: string, value: string): string {
  let v = variant.accumulate ? `c[${index}] + ${value}` : value;
  if (variant.addend) v = `${v} + addend[${index}]`;
  if (variant.gelu === 'slope') return `c[${index}] = (${v}) * geluSlope(pre[${index}]);`;
  if (variant.gelu === 'value') return `let v = ${v}; c[${index}] = v; act[${index}] = geluValue(v);`;
  return `c[${index}] = ${v};`;
}

function header(variant: MatmulVariant, blocking: MatmulBlocking, element: { ab: string; c: 'f32' | 'vec4f' }): string {
  // The analysis cannot see that a subgroup returns past the edge only as a whole (skipPastEdge).
  const subgroups = variant.shareRows ? 'enable subgroups;\ndiagnostic(off, subgroup_uniformity);' : '';
  return /* wgsl */ `${subgroups}
struct Params { M: u32, K: u32, N: u32, batch: u32 }
@group(0) @binding(0) var<storage, read> a: array<${element.ab}>;
@group(0) @binding(1) var<storage, read> b: array<${element.ab}>;
@group(0) @binding(2) var<storage, read_write> c: array<${element.c}>;
@group(0) @binding(3) var<uniform> p: Params;
${epilogueBindings(variant, element.c)}
@compute @workgroup_size(${blocking.workgroup[0]}, ${blocking.workgroup[1]})
fn main(@builtin(global_invocation_id) gid: vec3u${variant.shareRows ? ', @builtin(subgroup_invocation_id) lane: u32' : ''}) {`;
}

/** `acc{i}_{g}`: rows i, column group g (4 scalar columns, or one vec4 column). */
function declareAccumulators(rows: number, groups: number, init: (g: number) => string): string {
  return lines(rows, (i) => lines(groups, (g) => `  var acc${i}_${g} = ${init(g)};`));
}

/** Stores for C viewed as f32 [M, N]: columns col0 + 4g + j, masked per element. */
function storeScalarColumns(variant: MatmulVariant, rows: number, groups: number): string {
  const store = (i: number, g: number, j: number) => {
    const index = `cBase + (row0 + ${i}u) * p.N + col0 + ${4 * g + j}u`;
    return `    if (col0 + ${4 * g + j}u < p.N) { ${storeStatement(variant, index, `acc${i}_${g}[${j}]`)} }`;
  };
  return lines(rows, (i) => `  if (row0 + ${i}u < p.M) {\n${lines(groups, (g) => lines(4, (j) => store(i, g, j)))}\n  }`);
}

/** Stores for C viewed as vec4 [M, N/4]: vec4 columns `column` + g, masked per row and vec4 column. */
function storeVec4Columns(variant: MatmulVariant, rows: number, groups: number, row: (i: number) => string, column = 'col0'): string {
  const store = (i: number, g: number) => {
    const index = `cBase + (${row(i)}) * N4 + ${column} + ${g}u`;
    return `    if (${column} + ${g}u < N4) { ${storeStatement(variant, index, `acc${i}_${g}`)} }`;
  };
  return lines(rows, (i) => `  if (${row(i)} < p.M) {\n${lines(groups, (g) => store(i, g))}\n  }`);
}

/** rowSums[row] += sum for each (row, sum), by the invocation whose columns start at 0, rows past M skipped. */
function addRowSums(rows: [string, string][]): string {
  return `  if (gid.x == 0u) {\n${rows.map(([row, sum]) => `    if (${row} < p.M) { rowSums[${row}] += ${sum}; }`).join('\n')}\n  }`;
}

function scalarWgsl(variant: MatmulVariant, blocking: MatmulBlocking): string {
  const { layout } = variant;
  const R = blocking.rows;
  const G = blocking.cols / 4;
  // Index of A(m, k) and B(k, n) within one batch item.
  const aIndex = (m: string, k: string) => (layout === 'tn' ? `${k} * p.M + ${m}` : `${m} * p.K + ${k}`);
  const bIndex = (k: string, n: string) => (layout === 'nt' ? `${n} * p.K + ${k}` : `${k} * p.N + ${n}`);
  const biasInit = (g: number) =>
    variant.bias
      ? `vec4f(${range(4)
          .map((j) => `bias[n${4 * g + j}]`)
          .join(', ')})`
      : 'vec4f(0.0)';
  return /* wgsl */ `${header(variant, blocking, { ab: 'f32', c: 'f32' })}
  let row0 = gid.y * ${R}u;
  let col0 = gid.x * ${4 * G}u;
  if (row0 >= p.M || col0 >= p.N) { return; }
  let aBase = gid.z * p.M * p.K;
  let bBase = gid.z * p.K * p.N;
  let cBase = gid.z * p.M * p.N;
${lines(R, (i) => `  let m${i} = min(row0 + ${i}u, p.M - 1u);`)}
${lines(4 * G, (j) => `  let n${j} = min(col0 + ${j}u, p.N - 1u);`)}
${declareAccumulators(R, G, biasInit)}
${variant.rowSums ? lines(R, (i) => `  var sumA${i} = 0.0;`) : ''}
  for (var k = 0u; k < p.K; k++) {
${lines(R, (i) => `    let a${i} = a[aBase + ${aIndex(`m${i}`, 'k')}];`)}
${lines(
  G,
  (g) =>
    `    let b${g} = vec4f(${range(4)
      .map((j) => `b[bBase + ${bIndex('k', `n${4 * g + j}`)}]`)
      .join(', ')});`,
)}
${lines(R, (i) => lines(G, (g) => `    acc${i}_${g} += a${i} * b${g};`))}
${variant.rowSums ? lines(R, (i) => `    sumA${i} += a${i};`) : ''}
  }
${storeScalarColumns(variant, R, G)}
${variant.rowSums ? addRowSums(range(R).map((i) => [`row0 + ${i}u`, `sumA${i}`])) : ''}
}
`;
}

function nnVec4Wgsl(variant: MatmulVariant, blocking: MatmulBlocking): string {
  const R = blocking.rows;
  const G = blocking.cols / 4;
  // A as [M, K/4] vec4, B as [K, N/4] vec4, C as [M, N/4] vec4.
  const fma = (i: number, g: number) => `    acc${i}_${g} += a${i}.x * b0_${g} + a${i}.y * b1_${g} + a${i}.z * b2_${g} + a${i}.w * b3_${g};`;
  return /* wgsl */ `${header(variant, blocking, { ab: 'vec4f', c: 'vec4f' })}
  let K4 = p.K / 4u;
  let N4 = p.N / 4u;
  let row0 = gid.y * ${R}u;
  let col0 = gid.x * ${G}u;
${skipPastEdge(variant, 'row0 >= p.M', (x) => `${x} * ${G}u >= N4`)}
  let aBase = gid.z * p.M * K4;
  let bBase = gid.z * p.K * N4;
  let cBase = gid.z * p.M * N4;
${rowsOfA(variant, R)}
${lines(G, (g) => `  let n${g} = min(col0 + ${g}u, N4 - 1u);`)}
${declareAccumulators(R, G, (g) => (variant.bias ? `bias[n${g}]` : 'vec4f(0.0)'))}
  for (var k4 = 0u; k4 < K4; k4++) {
${loadRowsOfA(variant, R, (m) => `aBase + ${m} * K4 + k4`)}
${lines(4, (s) => lines(G, (g) => `    let b${s}_${g} = b[bBase + (k4 * 4u + ${s}u) * N4 + n${g}];`))}
${lines(R, (i) => lines(G, (g) => fma(i, g)))}
  }
${storeVec4Columns(variant, R, G, (i) => `row0 + ${i}u`)}
}
`;
}

function ntVec4Wgsl(variant: MatmulVariant, blocking: MatmulBlocking): string {
  const R = blocking.rows;
  const G = blocking.cols / 4;
  // A as [M, K/4] vec4 and B as [N, K/4] vec4: each output is a sum of vec4 dot products. C stays
  // f32 so N may be ragged.
  const dots = (i: number, g: number) =>
    `vec4f(${range(4)
      .map((j) => `dot(a${i}, b${4 * g + j})`)
      .join(', ')})`;
  // Aligned, C is [M, N/4] vec4 and a group of four columns is wholly inside or past the edge.
  const aligned = variant.alignedColumns === true;
  const biasInit = (g: number) =>
    !variant.bias
      ? 'vec4f(0.0)'
      : aligned
        ? `bias[min(col0 / 4u + ${g}u, N4 - 1u)]`
        : `vec4f(${range(4)
            .map((j) => `bias[n${4 * g + j}]`)
            .join(', ')})`;
  return /* wgsl */ `${header(variant, blocking, { ab: 'vec4f', c: aligned ? 'vec4f' : 'f32' })}
  let K4 = p.K / 4u;
  let row0 = gid.y * ${R}u;
  let col0 = gid.x * ${4 * G}u;
${skipPastEdge(variant, 'row0 >= p.M', (x) => `${x} * ${4 * G}u >= p.N`)}
  let aBase = gid.z * p.M * K4;
  let bBase = gid.z * p.N * K4;
  let cBase = gid.z * p.M * p.N${aligned ? ' / 4u;\n  let N4 = p.N / 4u' : ''};
${rowsOfA(variant, R)}
${lines(4 * G, (j) => `  let n${j} = min(col0 + ${j}u, p.N - 1u);`)}
${declareAccumulators(R, G, biasInit)}
  for (var k4 = 0u; k4 < K4; k4++) {
${loadRowsOfA(variant, R, (m) => `aBase + ${m} * K4 + k4`)}
${lines(4 * G, (j) => `    let b${j} = b[bBase + n${j} * K4 + k4];`)}
${lines(R, (i) => lines(G, (g) => `    acc${i}_${g} += ${dots(i, g)};`))}
  }
${aligned ? storeVec4Columns(variant, R, G, (i) => `row0 + ${i}u`, 'col0 / 4u') : storeScalarColumns(variant, R, G)}
}
`;
}

function tnVec4Wgsl(variant: MatmulVariant, blocking: MatmulBlocking): string {
  const Q = blocking.rows / 4;
  const G = blocking.cols / 4;
  // A as [K, M/4] vec4 (four rows of C per load), B as [K, N/4] vec4, C as [M, N/4] vec4: each k
  // adds the outer product of an A vec4 and a B vec4.
  const outer = (q: number, s: number, g: number) => `    acc${4 * q + s}_${g} += a${q}.${'xyzw'[s]} * b${g};`;
  return /* wgsl */ `${header(variant, blocking, { ab: 'vec4f', c: 'vec4f' })}
  let M4 = p.M / 4u;
  let N4 = p.N / 4u;
  let row0 = gid.y * ${4 * Q}u;
  let col0 = gid.x * ${G}u;
${skipPastEdge(variant, 'row0 >= p.M', (x) => `${x} * ${G}u >= N4`)}
  let aBase = gid.z * p.K * M4;
  let bBase = gid.z * p.K * N4;
  let cBase = gid.z * p.M * N4;
${
  variant.shareRows
    ? `  let own = min(row0 / 4u + lane % ${Q}u, M4 - 1u);` // lane l loads vec4 l mod Q of the shared rows
    : lines(Q, (q) => `  let mq${q} = min(row0 / 4u + ${q}u, M4 - 1u);`)
}
${lines(G, (g) => `  let n${g} = min(col0 + ${g}u, N4 - 1u);`)}
${declareAccumulators(4 * Q, G, (g) => (variant.bias ? `bias[n${g}]` : 'vec4f(0.0)'))}
${variant.rowSums ? lines(Q, (q) => `  var sumA${q} = vec4f(0.0);`) : ''}
  for (var k = 0u; k < p.K; k++) {
${
  variant.shareRows
    ? [`    let mine = a[aBase + k * M4 + own];`, ...range(Q).map((q) => `    let a${q} = subgroupBroadcast(mine, ${q}u);`)].join('\n')
    : lines(Q, (q) => `    let a${q} = a[aBase + k * M4 + mq${q}];`)
}
${lines(G, (g) => `    let b${g} = b[bBase + k * N4 + n${g}];`)}
${lines(Q, (q) => lines(4, (s) => lines(G, (g) => outer(q, s, g))))}
${variant.rowSums ? lines(Q, (q) => `    sumA${q} += a${q};`) : ''}
  }
${storeVec4Columns(variant, 4 * Q, G, (i) => `row0 + ${i}u`)}
${variant.rowSums ? addRowSums(range(4 * Q).map((i) => [`row0 + ${i}u`, `sumA${Math.floor(i / 4)}.${'xyzw'[i % 4]}`])) : ''}
}
`;
}
