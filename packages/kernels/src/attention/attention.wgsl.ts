// Causal multi-head attention with a fused softmax, forward and backward, llm.c style: the forward
// saves the probabilities and the backward reads them.
//
// Shape legend:  B batch · T tokens · H heads · hd head width · D = H·hd · C3 = 3D
//   qkv:  [B, T, 3D] f32   q | k | v; head h of each at columns h·hd … (h+1)·hd
//   out:  [B, T, D]  f32   heads concatenated
//   att:  [B, H, T, T] f32 probabilities; row t holds P[t, 0..t], zeros past t (the causal mask)
//
// Forward, per (b, h, t):  S[t, j] = (q_t · k_j)/√hd for j ≤ t;  P[t, ·] = softmax(S[t, ·]);
//                          out_t = Σ_j P[t, j] v_j
// Backward, from dout:     dP[t, j] = dout_t · v_j;   dS[t, j] = P[t, j]·(dP[t, j] − Σ_j' P[t, j']·dP[t, j'])
//                          dq_t = Σ_j dS[t, j] k_j/√hd;   dk_j = Σ_t dS[t, j] q_t/√hd;   dv_j = Σ_t P[t, j] dout_t
//
// Why materialised probabilities rather than a flash-style per-row logsumexp: the backward with only
// the logsumexp must recompute q·k in both of its passes (the dq pass and the dk/dv pass, since WGSL
// has no float atomics and a key's gradient sums over queries). At T ≤ 256 the [B, H, T, T] buffer is
// at most a few MB, and no kernel here needs a barrier: no workgroup memory (barriers cost ~10× on
// SwiftShader, docs/design.md §5). The backward needs no dS buffer either: Σ_j' P[t, j']·dP[t, j'] =
// dout_t·out_t (FlashAttention's δ), so each pass recomputes dP[t, j] = dout_t·v_j where it needs it.
//
// The head width is baked into the source and each per-row vector is unrolled into ⌈hd/4⌉ vec4
// registers (loaded as vec4 when hd is a multiple of 4, else component by component with zeros past
// hd). Against private arrays indexed in loops this cut forward+backward on SwiftShader from 54 to
// 12 ms (B=8, T=64, D=64, H=4, median of 30 runs, 2-core machine under load; 33 → 11 ms best-of-30;
// tools/bench/attention-timing.ts), about 1.1 GFLOP/s, the register-blocked matmul's rate.
//
// Each invocation takes R rows of one (b, h) (rowsPerInvocation): R queries share every key's and
// value's loads, and in the key pass R keys share every query's. SwiftShader runs an invocation per
// SIMD lane and loads each lane's vec4 separately, so at hd = 8 the loads, not the dot products, were
// the cost. At the agent lengths (B=8, D=32, H=4, T = 64…256) this, the δ backward and a one-sweep
// online-softmax forward cut the CPU time of forward+backward by 1.2–1.8× (docs/experiments.md,
// 2026-12-03).
//
// Masking: the loops stop at the diagonal, so masked scores never enter the softmax; the running max
// starts at the finite sentinel −3e38 (never −Inf, which WGSL may assume away).

import { flatIndexWgsl } from '../gpu/grid.ts';

export const ATTENTION_WORKGROUP = 64;

/**
 * Rows per invocation: each key's and value's vec4 loads are shared by R query rows (and each
 * query's by R keys in the key pass). R private accumulators of hd floats each; wide heads get fewer.
 */
export function rowsPerInvocation(hd: number): number {
  return hd <= 16 ? 4 : hd <= 32 ? 2 : 1;
}

/**
 * How a head's hd floats map onto vec4 registers. With hd % 4 == 0 every head offset is a multiple
 * of 4, so the [B, T, ·] buffers are bound as array<vec4f> and offsets count vec4s.
 */
export class HeadVectors {
  readonly n4: number;
  readonly vec: boolean;
  readonly regs: number[];

  constructor(readonly hd: number) {
    this.n4 = Math.ceil(hd / 4);
    this.vec = hd % 4 === 0;
    this.regs = [...Array(this.n4).keys()];
  }

  /** Element type for buffers laid out in heads ([B, T, 3D], [B, T, D], the KV cache). */
  get element(): string {
    return this.vec ? 'vec4f' : 'f32';
  }

  /** WGSL divisor turning an element offset into an index of `element`. */
  get unit(): string {
    return this.vec ? '4u' : '1u';
  }

  /** Register i of the head vector starting at `base` (an index of `element`). */
  load(array: string, base: string, i: number): string {
    if (this.vec) return `${array}[${base} + ${i}u]`;
    const c = [0, 1, 2, 3].map((k) => (4 * i + k < this.hd ? `${array}[${base} + ${4 * i + k}u]` : '0.0'));
    return `vec4f(${c.join(', ')})`;
  }

  store(array: string, base: string, i: number, value: string): string {
    if (this.vec) return `${array}[${base} + ${i}u] = ${value};`;
    return [0, 1, 2, 3]
      .filter((k) => 4 * i + k < this.hd)
      .map((k) => `${array}[${base} + ${4 * i + k}u] = (${value})[${k}];`)
      .join(' ');
  }

  /** One statement per register, with `i` substituted. */
  each(fn: (i: number) => string, indent = '  '): string {
    return this.regs.map((i) => indent + fn(i)).join('\n');
  }

  dot(a: string, bArray: string, bBase: string): string {
    return this.regs.map((i) => `dot(${a}${i}, ${this.load(bArray, bBase, i)})`).join(' + ');
  }
}

const rows = (R: number) => [...Array(R).keys()];
const each = (R: number, fn: (r: number) => string, indent = '  ') =>
  rows(R)
    .map((r) => indent + fn(r))
    .join('\n');

const header = (hv: HeadVectors) => /* wgsl */ `
struct Params { B: u32, H: u32, T: u32, scale: f32 }
const HD: u32 = ${hv.hd}u;
const NEG_SENTINEL: f32 = -3.0e38;
${flatIndexWgsl(ATTENTION_WORKGROUP)}`;

// Index arithmetic shared by all three kernels. Invocation = (b·H + h)·nBlocks + block; its R rows
// (queries in the forward and the query pass, keys in the key pass) are block·R + r, clamped to
// T − 1: in the last block of a sequence the extra rows repeat row T − 1, computing and storing the
// same values again, so no row needs a guard. Offsets of the [B, T, ·] buffers are in units of the
// bound element (vec4f or f32).
const blockPrelude = (hv: HeadVectors, R: number) => /* wgsl */ `
  let T = p.T;
  let nBlocks = (T + ${R - 1}u) / ${R}u;
  let inv = flatIndex(gid, nwg);
  if (inv >= p.B * p.H * nBlocks) { return; }
  let bh = inv / nBlocks;
  let r0 = (inv % nBlocks) * ${R}u;       // this block's first row
  let last = min(r0 + ${R - 1}u, T - 1u);  // its last row
  let h = bh % p.H;
  let D = p.H * HD;
  let C3 = 3u * D;
  let seq = (bh / p.H) * T;              // flat index of this sequence's token 0
  let stride3 = C3 / ${hv.unit};          // one token in qkv
  let strideD = D / ${hv.unit};           // one token in out / dout
  let qOff = (seq * C3 + h * HD) / ${hv.unit};  // q of token j at qOff + j·stride3
  let kOff = qOff + strideD;              // k of token j at kOff + j·stride3
  let vOff = kOff + strideD;              // v of token j at vOff + j·stride3
  let gOff = (seq * D + h * HD) / ${hv.unit};   // out/dout of token j at gOff + j·strideD
  let aOff = bh * T * T;                  // att[b, h, t, j] at aOff + t·T + j
${rows(R)
  .map((r) => `  let t${r} = min(r0 + ${r}u, T - 1u);`)
  .join('\n')}
`;

const entry = /* wgsl */ `@compute @workgroup_size(${ATTENTION_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {`;

/**
 * A loop over the columns lo ≤ j ≤ hi shared by the block's R rows: `shared` loads what every row
 * reads at j (once for all of them), `perRow(r)` is row r's work. Columns before the block's
 * first row are inside every row's causal triangle; from r0 on, row r takes only j ≤ t_r (the
 * `masked` condition).
 */
function sharedLoop(R: number, v: string, shared: string, perRow: (r: number) => string, masked: (r: number) => string): string {
  return /* wgsl */ `
  for (var ${v} = 0u; ${v} < r0; ${v}++) {
${shared}
${each(R, perRow, '    ')}
  }
  for (var ${v} = r0; ${v} <= last; ${v}++) {
${shared}
${each(R, (r) => `if (${masked(r)}) { ${perRow(r)} }`, '    ')}
  }`;
}

/**
 * Forward: writes out and att, R query rows per invocation sharing each key's and value's loads.
 * One sweep with an online softmax (running max, sum and output rescaled when the max grows)
 * stores the scores; a second, per row, turns them into probabilities. The second skips a repeated
 * last row (`ok_r` false), so it never rewrites its twin's probabilities twice.
 */
export function attentionForwardWgsl(hd: number, R: number): string {
  const hv = new HeadVectors(hd);
  const rowAtt = (r: number) => `aOff + t${r} * T`;
  const perRow = (r: number) => `let s${r} = ${hv.regs.map((i) => `dot(q${r}_${i}, k${i})`).join(' + ')};
      att[${rowAtt(r)} + j] = s${r};
      if (s${r} > m${r}) {
        let c = exp(m${r} - s${r});
        sum${r} *= c;
${hv.each((i) => `acc${r}_${i} *= c;`, '        ')}
        m${r} = s${r};
      }
      let e${r} = exp(s${r} - m${r});
      sum${r} += e${r};
${hv.each((i) => `acc${r}_${i} += e${r} * v${i};`, '      ')}`;
  return /* wgsl */ `${header(hv)}
@group(0) @binding(0) var<storage, read> qkv: array<${hv.element}>;
@group(0) @binding(1) var<storage, read_write> out: array<${hv.element}>;
@group(0) @binding(2) var<storage, read_write> att: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

${entry}
${blockPrelude(hv, R)}
${rows(R)
  .map(
    (r) => `  let qb${r} = qOff + t${r} * stride3;
${hv.each((i) => `let q${r}_${i} = ${hv.load('qkv', `qb${r}`, i)} * p.scale;`)}
  var m${r} = NEG_SENTINEL;
  var sum${r} = 0.0;
${hv.each((i) => `var acc${r}_${i} = vec4f(0.0);`)}`,
  )
  .join('\n')}
  // 1. Scores S[t, j] = q_t·k_j/√hd into att; max, Σ exp(S − max) and Σ exp(S − max) v_j per row.
${sharedLoop(
  R,
  'j',
  `    let kb = kOff + j * stride3;
    let vb = vOff + j * stride3;
${hv.each((i) => `let k${i} = ${hv.load('qkv', 'kb', i)};`, '    ')}
${hv.each((i) => `let v${i} = ${hv.load('qkv', 'vb', i)};`, '    ')}`,
  perRow,
  (r) => `j <= t${r}`,
)}
  // 2. Probabilities P = exp(S − max)/sum into att, zeros past the diagonal, and the outputs.
${rows(R)
  .map(
    (r) => `  if (r0 + ${r}u < T) {
    let inv = 1.0 / sum${r};
    for (var j = 0u; j <= t${r}; j++) { att[${rowAtt(r)} + j] = exp(att[${rowAtt(r)} + j] - m${r}) * inv; }
    for (var j = t${r} + 1u; j < T; j++) { att[${rowAtt(r)} + j] = 0.0; }
    let ob = gOff + t${r} * strideD;
${hv.each((i) => hv.store('out', 'ob', i, `acc${r}_${i} * inv`), '    ')}
  }`,
  )
  .join('\n')}
}
`;
}

/**
 * Backward, pass 1 of 2, R query rows per invocation: dq_t = Σ_j dS[t, j] k_j/√hd, with
 * dS[t, j] = P[t, j]·(dout_t·v_j − δ_t) and δ_t = Σ_j P[t, j]·dP[t, j] = dout_t·out_t (FlashAttention's
 * identity: out_t = Σ_j P[t, j] v_j), so one sweep over the row and no dS buffer.
 */
export function attentionBackwardQueryWgsl(hd: number, R: number): string {
  const hv = new HeadVectors(hd);
  return /* wgsl */ `${header(hv)}
@group(0) @binding(0) var<storage, read> qkv: array<${hv.element}>;
@group(0) @binding(1) var<storage, read> att: array<f32>;
@group(0) @binding(2) var<storage, read> out: array<${hv.element}>;
@group(0) @binding(3) var<storage, read> dout: array<${hv.element}>;
@group(0) @binding(4) var<storage, read_write> dqkv: array<${hv.element}>;
@group(0) @binding(5) var<uniform> p: Params;

${entry}
${blockPrelude(hv, R)}
${rows(R)
  .map(
    (r) => `  let gb${r} = gOff + t${r} * strideD;
${hv.each((i) => `let g${r}_${i} = ${hv.load('dout', `gb${r}`, i)};`)}
  let delta${r} = ${hv.regs.map((i) => `dot(g${r}_${i}, ${hv.load('out', `gb${r}`, i)})`).join(' + ')};
${hv.each((i) => `var dq${r}_${i} = vec4f(0.0);`)}`,
  )
  .join('\n')}
${sharedLoop(
  R,
  'j',
  `    let kb = kOff + j * stride3;\n    let vb = vOff + j * stride3;\n${hv.each((i) => `let k${i} = ${hv.load('qkv', 'kb', i)};`, '    ')}\n${hv.each((i) => `let v${i} = ${hv.load('qkv', 'vb', i)};`, '    ')}`,
  (r) =>
    `let ds${r} = att[aOff + t${r} * T + j] * (${hv.regs.map((i) => `dot(g${r}_${i}, v${i})`).join(' + ')} - delta${r}); ${hv.regs.map((i) => `dq${r}_${i} += ds${r} * k${i};`).join(' ')}`,
  (r) => `j <= t${r}`,
)}
${rows(R)
  .map((r) => `  let ob${r} = qOff + t${r} * stride3;\n${hv.each((i) => hv.store('dqkv', `ob${r}`, i, `dq${r}_${i} * p.scale`))}`)
  .join('\n')}
}
`;
}

/**
 * Backward, pass 2 of 2, R key rows per invocation: dk_j = Σ_{t ≥ j} dS[t, j] q_t/√hd and
 * dv_j = Σ_{t ≥ j} P[t, j] dout_t, each query's q, dout and δ loaded once for the block's keys.
 */
export function attentionBackwardKeyWgsl(hd: number, R: number): string {
  const hv = new HeadVectors(hd);
  const perKey = (r: number) =>
    `let pr${r} = att[aOff + t * T + t${r}]; let ds${r} = pr${r} * (${hv.regs.map((i) => `dot(g${i}, v${r}_${i})`).join(' + ')} - delta); ${hv.regs
      .map((i) => `dk${r}_${i} += ds${r} * q${i}; dv${r}_${i} += pr${r} * g${i};`)
      .join(' ')}`;
  const shared = `    let qb = qOff + t * stride3;
    let gb = gOff + t * strideD;
${hv.each((i) => `let q${i} = ${hv.load('qkv', 'qb', i)};`, '    ')}
${hv.each((i) => `let g${i} = ${hv.load('dout', 'gb', i)};`, '    ')}
    let delta = ${hv.regs.map((i) => `dot(g${i}, ${hv.load('out', 'gb', i)})`).join(' + ')};`;
  return /* wgsl */ `${header(hv)}
@group(0) @binding(0) var<storage, read> qkv: array<${hv.element}>;
@group(0) @binding(1) var<storage, read> att: array<f32>;
@group(0) @binding(2) var<storage, read> out: array<${hv.element}>;
@group(0) @binding(3) var<storage, read> dout: array<${hv.element}>;
@group(0) @binding(4) var<storage, read_write> dqkv: array<${hv.element}>;
@group(0) @binding(5) var<uniform> p: Params;

${entry}
${blockPrelude(hv, R)}
${rows(R)
  .map(
    (r) => `  let vb${r} = vOff + t${r} * stride3;
${hv.each((i) => `let v${r}_${i} = ${hv.load('qkv', `vb${r}`, i)};`)}
${hv.each((i) => `var dk${r}_${i} = vec4f(0.0);`)}
${hv.each((i) => `var dv${r}_${i} = vec4f(0.0);`)}`,
  )
  .join('\n')}
  // Queries r0 … last see only the block's keys t_r ≤ t; every later query sees all of them.
  for (var t = r0; t <= last; t++) {
${shared}
${each(R, (r) => `if (t${r} <= t) { ${perKey(r)} }`, '    ')}
  }
  for (var t = last + 1u; t < T; t++) {
${shared}
${each(R, perKey, '    ')}
  }
${rows(R)
  .map(
    (r) => `  let kb${r} = kOff + t${r} * stride3;
${hv.each((i) => hv.store('dqkv', `kb${r}`, i, `dk${r}_${i} * p.scale`))}
${hv.each((i) => hv.store('dqkv', `vb${r}`, i, `dv${r}_${i}`))}`,
  )
  .join('\n')}
}
`;
}
